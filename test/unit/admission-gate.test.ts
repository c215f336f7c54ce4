import { describe, expect, it } from 'vitest';
import { admissionGate } from '../../api/admission/admission-gate.js';

const THRESHOLDS = { shedAboveLagMs: 200, admitBelowLagMs: 50, retryAfterSeconds: 2 };

/** The gate's answer to each (lag, time) in turn. */
function answers(steps: Array<[lagMs: number, atMs: number]>): boolean[] {
  const gate = admissionGate(THRESHOLDS);
  return steps.map(([lag, at]) => gate.admits(lag, at));
}

describe('admissionGate (create-cart admission with hysteresis)', () => {
  it('admits below the shedding threshold, however long the lag stays there', () => {
    expect(
      answers([
        [10, 0],
        [150, 1000],
        [199, 2000],
        [199, 3000],
      ]),
    ).toEqual([true, true, true, true]);
  });

  it('sheds from the first figure at or above the threshold', () => {
    expect(
      answers([
        [10, 0],
        [200, 1000],
      ]),
    ).toEqual([true, false]);
  });

  it('keeps shedding while the lag is between the two thresholds: a lag near one threshold does not flap', () => {
    expect(
      answers([
        [250, 0],
        [120, 3000],
        [190, 4000],
        [51, 5000],
        [210, 6000],
        [60, 7000],
      ]),
    ).toEqual([false, false, false, false, false, false]);
  });

  it('admits again once the lag is down to the lower threshold and Retry-After has passed since shedding began', () => {
    expect(
      answers([
        [250, 0],
        [50, 2000],
        [40, 3000],
      ]),
    ).toEqual([false, true, true]);
  });

  it('keeps shedding for Retry-After even when the lag drops at once, so a client that waited is not refused by a gate that had just closed', () => {
    expect(
      answers([
        [250, 0],
        [10, 500],
        [10, 1999],
        [10, 2000],
      ]),
    ).toEqual([false, false, false, true]);
  });

  it('sheds again, with a new hold, when the lag climbs back after recovering', () => {
    expect(
      answers([
        [250, 0],
        [10, 2000],
        [300, 2500],
        [10, 3500],
        [10, 4500],
      ]),
    ).toEqual([false, true, false, false, true]);
  });
});
