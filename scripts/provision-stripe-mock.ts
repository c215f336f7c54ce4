import { ensureStripeMock } from './stripe-mock.js';

/** `npm run stripe-mock:provision`: find or build stripe-mock now, so the test run does not. */
const binary = await ensureStripeMock();
process.stdout.write(`stripe-mock: ${binary}\n`);
