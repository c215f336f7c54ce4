import { patched } from '@temporalio/workflow';
import { RELEASE_1_1, RELEASE_1_2, RELEASE_1_3 } from '../release-patches.js';

/**
 * What one session does, by the release that started it (CHANGELOG.md, docs/decisions/workflow-versioning.md):
 * each release marker read once, when the session starts, and named here for the behaviour it brings.
 * The modules of the session read this object, never a marker, so a release's reach is this one list.
 */
export interface SessionRelease {
  /** 1.1: a code goes out from a local activity in the workflow task that took the update (./codes.ts). */
  sendsCodesLocally: boolean;
  /** 1.1: a step is one local activity, and `processing` is told only of a slow payment (./recording.ts). */
  recordsLean: boolean;
  /** 1.1: the charge may send the customer to their bank's 3-D Secure challenge (./payment.ts). */
  threeDSecure: boolean;
  /** 1.1: a cart with `captureMethod: "manual"` is only authorized (./payment.ts, ./authorization-hold.ts). */
  manualCapture: boolean;
  /** 1.1: the merchant may end the session (the expire update). */
  merchantExpire: boolean;
  /** 1.2: pays with a saved card, or saves the card on consent (./payment.ts). */
  savedCards: boolean;
  /** 1.2: the charge activity writes the `processing` step itself (./recording.ts). */
  processingInCharge: boolean;
  /** 1.2: a verified session answers another browser with a fresh code (./codes.ts). */
  rebindsBrowsers: boolean;
  /** 1.2: an abandoned session of a cart with recovery reminds its customer (./reminder.ts). */
  remindsAfterAbandonment: boolean;
  /** 1.3: a sandbox session's timers fire at once on the sandbox helpers' `advance` (./test-clock.ts). */
  advancesClock: boolean;
  /** 1.3: the charge heartbeats, so one lost with its worker is retried within seconds (./payment-activities.ts). */
  chargeHeartbeats: boolean;
}

/**
 * The session's release, from its history's markers: called once, as the session starts. A session of
 * 1.3 on records only its own marker, which implies every earlier release's: each marker is an event in
 * history and, through the SDK, a `TemporalChangeVersion` upsert that Temporal writes to visibility, so
 * three markers cost a new session two markers and two visibility writes more than one
 * (docs/decisions/workflow-versioning.md). An older history has no `release-1.3` marker, so the call
 * answers false without a command, and the older markers are then asked in the order they were recorded.
 */
export function sessionRelease(): SessionRelease {
  const release13 = patched(RELEASE_1_3);
  const release11 = release13 || patched(RELEASE_1_1);
  const release12 = release13 || patched(RELEASE_1_2);
  return {
    sendsCodesLocally: release11,
    recordsLean: release11,
    threeDSecure: release11,
    manualCapture: release11,
    merchantExpire: release11,
    savedCards: release12,
    processingInCharge: release11 && release12,
    rebindsBrowsers: release12,
    remindsAfterAbandonment: release12,
    advancesClock: release13,
    chargeHeartbeats: release13,
  };
}
