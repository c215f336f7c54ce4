import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { runMerchantCli } from '../../scripts/merchant.js';
import type { TestStack } from './test-stack.js';

const exec = promisify(execFile);

/** The operator API of a test stack: `/operator…` with its bearer token (or `token`, null for none). */
export function operatorApi(stack: TestStack) {
  return (method: string, path: string, body?: unknown, token: string | null = stack.config.operatorToken ?? null) =>
    fetch(`${stack.apiUrl}/operator${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
}

type CliResult = { code: number; json: Record<string, unknown>; stderr: string };

/** What the CLI prints on success, or, failing, its report (check prints on stdout and exits 1) or its error line. */
function cliResult(code: number, stdout: string, stderr: string): CliResult {
  const printed = code === 0 || stdout.trim() ? stdout : stderr.split('\n')[0]!;
  return { code, json: JSON.parse(printed) as Record<string, unknown>, stderr };
}

/** The environment an operator's shell would give the CLI, pointed at the test stack's database and Temporal. */
function cliEnvironment(stack: TestStack): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CHECKOUT_ENV: 'sandbox',
    // As the stack's own: the tests' webhook receivers listen on this machine.
    WEBHOOK_ALLOW_LOOPBACK: String(stack.config.webhooks.allowLoopback),
    DATABASE_URL: stack.config.databaseUrl,
    DATA_ENCRYPTION_KEY: inject('dataEncryptionKey'),
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
    CHECKOUT_BASE_URL: stack.checkoutUrl,
  };
}

/**
 * The operator CLI (scripts/merchant.ts) run in the test's process: its commands, output and exit
 * codes, without a Node process and tsx per call. `merchantCliProcess` runs it as operators do.
 */
export function merchantCli(stack: TestStack) {
  return async (...args: string[]): Promise<CliResult> => {
    let stdout = '';
    let stderr = '';
    const code = await runMerchantCli(args, cliEnvironment(stack), {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
    });
    return cliResult(code, stdout, stderr);
  };
}

/** The operator CLI as an operator runs it: `npm run -s merchant`, as its own process. */
export function merchantCliProcess(stack: TestStack) {
  return async (...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await exec('npm', ['run', '-s', 'merchant', '--', ...args], { env: cliEnvironment(stack) });
      return cliResult(0, stdout, stderr);
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return cliResult(e.code, e.stdout, e.stderr);
    }
  };
}
