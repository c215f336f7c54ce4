import { ACTION_REFUSED } from '../../core/checkout/session.js';
import type { CartSessionState, ClockTarget } from './messages.js';
import { refuse, type SessionState } from './session-state.js';

/**
 * The sandbox helpers' test clock (advanceClockUpdate): fires a running timer of the session now. The
 * session's waits race their timer against `fired(target)`, so what follows is the timer's own path
 * (the same ledger write and event), never a database edit. Only a timer that is running can be fired.
 */
export function testClock(session: SessionState) {
  const fired = (target: ClockTarget) => session.clockAdvanced.has(target);

  const running: Record<ClockTarget, () => boolean> = {
    expired: () => session.status === 'pending' && !session.decision,
    authorization_expired: () => session.status === 'authorized' && !session.holdDecision,
    reminder_due: () => session.reminderWaiting,
  };

  return {
    fired,
    validateAdvance: (request: { to: ClockTarget }) => {
      const to = request?.to;
      if (!(to in running) || fired(to) || !running[to]()) refuse(ACTION_REFUSED.nothingToAdvance, `No ${String(to)} timer is running in this session.`);
    },
    advance: async ({ to }: { to: ClockTarget }): Promise<CartSessionState> => {
      session.clockAdvanced.add(to);
      if (to === 'expired') return session.settledSnapshot();
      if (to === 'authorization_expired') return session.holdSettledSnapshot();
      return session.snapshot();
    },
  };
}
