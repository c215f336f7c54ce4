import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../api/docs/openapi.js';

/**
 * Part of `npm run lint`: the OpenAPI document as a sandbox deployment serves it, built in-process
 * (no server, no database), written to a gitignored file and linted by Redocly (redocly.yaml) and
 * Spectral (.spectral.yaml) side by side.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const DOCUMENT = path.join(ROOT, '.openapi', 'openapi.json');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

// What npm start's sandbox serves; only these three settings reach the document.
const config = { apiBaseUrl: 'http://localhost:3000', checkoutBaseUrl: 'http://localhost:3001', environment: 'sandbox' as const };
mkdirSync(path.dirname(DOCUMENT), { recursive: true });
writeFileSync(DOCUMENT, `${JSON.stringify(buildOpenApiDocument(config), null, 2)}\n`);

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    // No telemetry: Redocly would otherwise report each run.
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const codes = await Promise.all([
  run(bin('redocly'), ['lint', '--format', 'stylish', DOCUMENT]),
  // Warnings fail too: the document is kept free of them (.spectral.yaml says which rules are off, and why).
  run(bin('spectral'), ['lint', '--fail-severity', 'warn', '--ruleset', path.join(ROOT, '.spectral.yaml'), DOCUMENT]),
]);
process.exitCode = codes.some((code) => code !== 0) ? 1 : 0;
