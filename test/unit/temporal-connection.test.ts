import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { createKeyring } from '../../core/crypto.js';
import type { ConnectionLike } from '@temporalio/client';
import { connectTemporal, withDeadline, withEagerStarts } from '../../core/temporal/connection.js';
import { freePort } from '../../scripts/free-port.js';

const uncaught: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);
afterEach(() => {
  process.off('uncaughtException', record);
});

// The SDK's gRPC retry timer used to fire after close and throw "Channel has been shut down" as an
// uncaught exception: a crash on shutdown for the API, an unhandled error for the test run.
it('close() waits for calls still retrying against an unreachable server, so nothing throws afterwards', async () => {
  process.on('uncaughtException', record);
  const temporal = connectTemporal({
    keyring: createKeyring([{ id: 'k1', key: randomBytes(32) }]),
    temporal: { address: `127.0.0.1:${await freePort()}`, namespace: 'default', taskQueue: 'unused', eagerStart: false, tls: undefined, apiKey: undefined },
  });
  // Like an HTTP handler that answered 503 on its own timeout while the call kept retrying.
  const abandoned = withDeadline(temporal, 2_000, () => temporal.connection.healthService.check({})).then(
    () => 'answered',
    () => 'failed',
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  await temporal.close();
  expect(await abandoned).toBe('failed');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(uncaught).toEqual([]);
});

// A create-cart start through the eager-start client (TEMPORAL_EAGER_START) goes over the worker's
// NativeConnection: the 3 s start deadline must reach that connection, not only the client's own.
it('withDeadline puts the same deadline on the eager-start connection as on the client connection', async () => {
  const config = {
    keyring: createKeyring([{ id: 'k1', key: randomBytes(32) }]),
    temporal: { address: `127.0.0.1:${await freePort()}`, namespace: 'default', taskQueue: 'unused', eagerStart: true, tls: undefined, apiKey: undefined },
  };
  const deadlines: Array<number | Date> = [];
  const workerConnection = {
    withDeadline: (deadline: number | Date, fn: () => Promise<unknown>) => {
      deadlines.push(deadline);
      return fn();
    },
  } as unknown as ConnectionLike;
  const plain = connectTemporal(config);
  const temporal = withEagerStarts(plain, config, workerConnection);
  try {
    const before = Date.now();
    expect(await withDeadline(temporal, 3_000, () => Promise.resolve('started'))).toBe('started');
    expect(deadlines).toHaveLength(1);
    expect(Number(deadlines[0])).toBeGreaterThanOrEqual(before + 3_000);
    expect(Number(deadlines[0])).toBeLessThanOrEqual(Date.now() + 3_000);
    // Without eager starts, nothing else is touched.
    await withDeadline(plain, 3_000, () => Promise.resolve());
    expect(deadlines).toHaveLength(1);
  } finally {
    await plain.close();
  }
});
