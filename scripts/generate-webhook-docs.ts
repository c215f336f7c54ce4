import { writeFileSync } from 'node:fs';
import { renderWebhookDocs, WEBHOOK_DOCS_PATH } from './webhook-docs.js';

/** `npm run docs:webhooks`: rewrites the event reference of docs/webhooks.md from core/webhooks/events.ts. */
writeFileSync(new URL(`../${WEBHOOK_DOCS_PATH}`, import.meta.url), renderWebhookDocs());
process.stdout.write(`wrote ${WEBHOOK_DOCS_PATH}\n`);
