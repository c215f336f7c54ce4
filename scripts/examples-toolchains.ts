import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * Where the merchant examples (examples/) get what they need to run: each language's toolchain from
 * this machine, its Standard Webhooks library from its own registry, cached per user outside the
 * checkout. `npm run examples:provision` fills it; test/integration/examples.test.ts runs from it.
 */

export const EXAMPLES_DIR = path.resolve(import.meta.dirname, '../examples');

const cacheDir = () => path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'hosted-checkout');

export function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

export type ExampleLanguage = 'go' | 'python' | 'node';
export const EXAMPLE_LANGUAGES: readonly ExampleLanguage[] = ['go', 'python', 'node'];

/** The virtual environment with examples/python/requirements.txt installed. */
export const pythonVenv = () => path.join(cacheDir(), 'examples-python');
export const venvPython = () => path.join(pythonVenv(), 'bin', 'python');

/** Go's module cache for the examples; a run reads only it (GOPROXY=off), so an unprovisioned one fails, never fetches. */
export const goEnv = (offline: boolean): Record<string, string> => ({
  GOMODCACHE: path.join(cacheDir(), 'go-mod'),
  GOFLAGS: '-mod=readonly',
  ...(offline ? { GOPROXY: 'off' } : {}),
});

/** The command that provides a language's toolchain, when this machine lacks it: the only reason an example may not run. */
export function missingToolchain(language: ExampleLanguage): string | undefined {
  if (language === 'go') return onPath('go') ? undefined : 'go';
  if (language === 'python') return onPath('python3') ? undefined : 'python3';
  return undefined;
}

/** What is not provisioned yet for a language whose toolchain is here: said as what to run. */
export function unprovisioned(language: ExampleLanguage): string | undefined {
  const provision = 'run `npm run -s examples:provision` first';
  if (language === 'python' && !existsSync(venvPython())) return `no virtual environment at ${pythonVenv()}: ${provision}`;
  if (language === 'node' && !existsSync(path.join(EXAMPLES_DIR, 'node', 'node_modules', 'standardwebhooks')))
    return `examples/node has no node_modules: ${provision}`;
  return undefined;
}
