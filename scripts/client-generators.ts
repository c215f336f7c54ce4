import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { cachedGoTool, ensureGoTool, type GoTool } from './go-tool.js';

/**
 * The client generators docs/clients.md names, at the versions test/integration/generated-clients.test.ts
 * runs them at: Go's and Python's are provisioned into the per-user cache (`npm run clients:provision`);
 * TypeScript's, openapi-typescript with openapi-fetch, are devDependencies.
 */

export const OAPI_CODEGEN: GoTool = {
  binary: 'oapi-codegen',
  title: 'oapi-codegen, the Go client generator (needed by the generated-clients test)',
  module: 'github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen',
  version: '2.8.2',
  envVar: 'OAPI_CODEGEN',
  alternatives: ['install oapi-codegen yourself and put it on PATH, or point OAPI_CODEGEN at it'],
};

/** The Go module the generated client imports, pinned in the generated module's go.mod. */
export const OAPI_CODEGEN_RUNTIME = { module: 'github.com/oapi-codegen/runtime', version: '1.9.0' } as const;

export const OPENAPI_PYTHON_CLIENT = { package: 'openapi-python-client', version: '0.29.1' } as const;

const cacheBase = () => path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'hosted-checkout');

/** The venv openapi-python-client is installed in; the generated client's dependencies (httpx, attrs) come with it. */
export const pythonClientVenv = () => path.join(cacheBase(), `${OPENAPI_PYTHON_CLIENT.package}-${OPENAPI_PYTHON_CLIENT.version}`);
/** Written last by the install, so a venv an interrupted install left behind is never taken for a complete one. */
const venvComplete = (venv: string) => path.join(venv, '.complete');

/** The provisioned tools, or undefined for each one not provisioned yet. */
export function provisionedClientGenerators(): { oapiCodegen?: string; pythonVenv?: string } {
  const venv = pythonClientVenv();
  return { oapiCodegen: cachedGoTool(OAPI_CODEGEN), pythonVenv: existsSync(venvComplete(venv)) ? venv : undefined };
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Builds oapi-codegen once and fetches its runtime module into Go's module cache, so the test builds offline. */
export async function ensureOapiCodegen(log?: (line: string) => void): Promise<string> {
  const binary = await ensureGoTool(OAPI_CODEGEN, log);
  const scratch = mkdtempSync(path.join(tmpdir(), 'oapi-runtime-'));
  try {
    writeFileSync(path.join(scratch, 'go.mod'), 'module warm\n\ngo 1.22\n');
    run('go', ['get', `${OAPI_CODEGEN_RUNTIME.module}@v${OAPI_CODEGEN_RUNTIME.version}`], { cwd: scratch });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

/** Installs openapi-python-client from PyPI into its own venv once. */
export function ensurePythonClientGenerator(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): string {
  const venv = pythonClientVenv();
  if (existsSync(venvComplete(venv))) return venv;
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(path.dirname(venv), { recursive: true });
  log(`Installing ${OPENAPI_PYTHON_CLIENT.package} ${OPENAPI_PYTHON_CLIENT.version} into ${venv} (once)…`);
  // Scripts in a venv name its path, so it is built where it stays; the marker says it is whole.
  run('python3', ['-m', 'venv', venv]);
  run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', `${OPENAPI_PYTHON_CLIENT.package}==${OPENAPI_PYTHON_CLIENT.version}`]);
  writeFileSync(venvComplete(venv), `${OPENAPI_PYTHON_CLIENT.version}\n`);
  return venv;
}
