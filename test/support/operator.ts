import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
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

/** The operator CLI as an operator runs it, as its own process, pointed at the test stack's database and Temporal. */
export function merchantCli(stack: TestStack) {
  return async (...args: string[]): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> => {
    const env = {
      ...process.env,
      CHECKOUT_ENV: 'sandbox',
      DATABASE_URL: stack.config.databaseUrl,
      DATA_ENCRYPTION_KEY: inject('dataEncryptionKey'),
      TEMPORAL_ADDRESS: stack.config.temporal.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      CHECKOUT_BASE_URL: stack.checkoutUrl,
    };
    try {
      const { stdout, stderr } = await exec('npm', ['run', '-s', 'merchant', '--', ...args], { env });
      return { code: 0, json: JSON.parse(stdout) as Record<string, unknown>, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      // A report that found something lacking (check) prints on stdout and still exits 1; errors print on stderr.
      const printed = e.stdout.trim() ? e.stdout : e.stderr.split('\n')[0]!;
      return { code: e.code, json: JSON.parse(printed) as Record<string, unknown>, stderr: e.stderr };
    }
  };
}
