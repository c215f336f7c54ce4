/** What the gate holds to: the lag that starts shedding, the lag that ends it, and the least time it lasts. */
export interface AdmissionThresholds {
  shedAboveLagMs: number;
  admitBelowLagMs: number;
  retryAfterSeconds: number;
}

/**
 * Whether a new checkout session is admitted, from the latest lag figure, with hysteresis: shedding
 * begins when the lag reaches `shedAboveLagMs` and ends only once it is down to `admitBelowLagMs` and
 * `retryAfterSeconds` have passed, so a lag hovering near one threshold does not flap, and a merchant
 * that waited its Retry-After is not refused by a gate that had only just closed.
 */
export function admissionGate(thresholds: AdmissionThresholds) {
  let shedSince: number | undefined;
  return {
    admits(lagMs: number, nowMs: number): boolean {
      if (shedSince === undefined) {
        if (lagMs >= thresholds.shedAboveLagMs) shedSince = nowMs;
      } else if (lagMs <= thresholds.admitBelowLagMs && nowMs - shedSince >= thresholds.retryAfterSeconds * 1000) {
        shedSince = undefined;
      }
      return shedSince === undefined;
    },
  };
}

export type AdmissionGate = ReturnType<typeof admissionGate>;
