import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { whileHeartbeating } from '../../activities/shared/heartbeat.js';

/** Runs `workMs` of work through whileHeartbeating (a beat every 20 ms) as an activity with `info`, counting its beats. */
async function beatsDuring(workMs: number, info: { heartbeatTimeoutMs?: number; isLocal?: boolean }): Promise<number> {
  const env = new MockActivityEnvironment(info);
  let beats = 0;
  env.on('heartbeat', () => beats++);
  const answer = await env.run(() => whileHeartbeating(() => new Promise<string>((resolve) => setTimeout(() => resolve('answered'), workMs)), 20));
  expect(answer).toBe('answered');
  return beats;
}

describe('whileHeartbeating', () => {
  it('beats while the work runs past an interval, for an activity scheduled with a heartbeat timeout', async () => {
    expect(await beatsDuring(130, { heartbeatTimeoutMs: 4_000 })).toBeGreaterThanOrEqual(3);
  });

  it('sends no beat for work that ends within the first interval', async () => {
    expect(await beatsDuring(5, { heartbeatTimeoutMs: 4_000 })).toBe(0);
  });

  it('sends none for an activity scheduled without a heartbeat timeout (a charge of a session from before 1.3)', async () => {
    expect(await beatsDuring(130, { heartbeatTimeoutMs: undefined })).toBe(0);
  });

  it('sends none from a local activity, which has no heartbeat', async () => {
    expect(await beatsDuring(130, { heartbeatTimeoutMs: 4_000, isLocal: true })).toBe(0);
  });
});
