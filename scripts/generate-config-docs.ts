import { writeFileSync } from 'node:fs';
import { CONFIGURATION_DOCS_PATH, renderConfigurationDocs } from './configuration-docs.js';

/** `npm run docs:config`: rewrites docs/configuration.md from core/config.ts. */
writeFileSync(new URL(`../${CONFIGURATION_DOCS_PATH}`, import.meta.url), renderConfigurationDocs());
process.stdout.write(`wrote ${CONFIGURATION_DOCS_PATH}\n`);
