import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEVELOPMENT_VARIABLES, environmentSchema, launcherEnvironmentSchema, loadConfig, settingDocs } from '../../core/config.js';
import { CONFIGURATION_DOCS_COMMAND, CONFIGURATION_DOCS_PATH, renderConfigurationDocs } from '../../scripts/configuration-docs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.data', '.test-data', 'reports', 'coverage', 'fixtures']);
/** The operating system's own, read to hand on to child processes: not settings of ours. */
const SYSTEM_VARIABLES = new Set(['PATH', 'HOME']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(path.join(dir, entry.name));
    return entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : [];
  });
}

const documentedVariables = new Set([
  ...Object.keys(environmentSchema.shape),
  ...Object.keys(launcherEnvironmentSchema.shape),
  ...Object.keys(DEVELOPMENT_VARIABLES),
]);

describe('docs/configuration.md', () => {
  it('is what core/config.ts renders today', () => {
    const committed = readFileSync(path.join(ROOT, CONFIGURATION_DOCS_PATH), 'utf8');
    expect(committed === renderConfigurationDocs(), `${CONFIGURATION_DOCS_PATH} is stale: run \`${CONFIGURATION_DOCS_COMMAND}\` and commit it`).toBe(true);
  });

  it('documents every setting of the schemas', () => {
    const shapes = { ...environmentSchema.shape, ...launcherEnvironmentSchema.shape };
    const undocumented = Object.entries(shapes)
      .filter(([, schema]) => !settingDocs.has(schema))
      .map(([variable]) => variable);
    expect(undocumented, 'add .register(settingDocs, { readBy, meaning }) to these in core/config.ts').toEqual([]);
  });

  it('marks required in production exactly what a production start refuses to go without', () => {
    // CHECKOUT_ENV and DATABASE_URL are required everywhere; given those, production names the rest.
    let refused: string[] = [];
    try {
      loadConfig({ CHECKOUT_ENV: 'production', DATABASE_URL: 'postgres://x' });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      refused = err.message
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(':')[0]!);
    }
    const marked = Object.entries(environmentSchema.shape)
      .filter(([, schema]) => settingDocs.get(schema)?.requiredInProduction)
      .map(([variable]) => variable);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(marked)).toEqual(new Set(['CHECKOUT_ENV', 'DATABASE_URL', ...refused]));
  });

  it('names every environment variable the code reads', () => {
    const read = new Set<string>();
    for (const file of sourceFiles(ROOT)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])|envVar: '([A-Z][A-Z0-9_]*)'/g)) {
        read.add((match[1] ?? match[2] ?? match[3])!);
      }
    }
    expect(read.size).toBeGreaterThan(10);
    const missing = [...read].filter((variable) => !documentedVariables.has(variable) && !SYSTEM_VARIABLES.has(variable)).sort();
    expect(missing, 'document these in core/config.ts (a schema, or DEVELOPMENT_VARIABLES), then run npm run docs:config').toEqual([]);
  });
});
