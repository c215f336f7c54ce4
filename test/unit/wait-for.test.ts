import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';

describe('waitFor', () => {
  it('asks again when the probe throws, as for an answer that is not there yet', async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls += 1;
        const events: Array<{ id: string }> = calls < 3 ? [] : [{ id: 'evt_1' }];
        return events[0]!.id;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe('evt_1');
    expect(calls).toBe(3);
  });

  it('times out naming what it waited for and the last error thrown', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('no events yet');
        },
        { timeoutMs: 20, intervalMs: 1, what: 'the first event' },
      ),
    ).rejects.toThrow('timed out after 20 ms waiting for the first event; the last probe threw: no events yet');
  });

  it('times out without a reason when the probe only answered undefined', async () => {
    await expect(waitFor(() => undefined, { timeoutMs: 10, intervalMs: 1, what: 'nothing' })).rejects.toThrow(/^timed out after 10 ms waiting for nothing$/);
  });
});
