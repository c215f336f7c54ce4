import { ActivityFailure, condition, log, proxyActivities, sleep } from '@temporalio/workflow';
import type { CartSessionActivities } from '../../activities/cart-session/index.js';
import { duration } from './operator-details.js';
import type { SessionRelease } from './release.js';
import type { SessionState } from './session-state.js';
import type { testClock } from './test-clock.js';

/**
 * Nobody waits on the reminder: an activity task, retried for about half an hour (a mail server or SMS
 * provider down for a while), then given up, since a reminder days late is worse than none. Its
 * worker dying mid-send is retried after the start-to-close timeout; the activity's claim in the
 * ledger makes that retry send nothing twice (activities/cart-session/reminder.ts).
 */
const { sendRecoveryReminder } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 9 },
});

/**
 * Abandoned-cart recovery's reminder (docs/abandoned-cart-recovery.md): a session of a cart with
 * recovery (input.recoveryReminderMs; never a recovery itself) that ends abandoned, whose customer
 * verified a contact and ticked "Remind me if I don't finish", waits the delay from the abandonment
 * and sends one reminder with the recovery link. The activity reads the contact from the ledger, sealed
 * there, so the workflow hands it only the cart and the language.
 */
export function recoveryReminder(session: SessionState, release: Pick<SessionRelease, 'advancesClock'>, clock: ReturnType<typeof testClock>) {
  return {
    async afterAbandonment(): Promise<void> {
      const delayMs = session.input.recoveryReminderMs;
      const { contact } = session;
      if (delayMs === undefined || !session.verified || !contact?.remind) return;
      const summary = `${duration(delayMs)} wait before the recovery reminder`;
      if (release.advancesClock) {
        // A 1.3 session's delay also ends on the test clock's `reminder_due` (./test-clock.ts).
        session.reminderWaiting = true;
        await condition(() => clock.fired('reminder_due'), delayMs, { summary });
        session.reminderWaiting = false;
      } else await sleep(delayMs, { summary });
      try {
        await sendRecoveryReminder({ cartId: session.cartId, ...(contact.locale ? { locale: contact.locale } : {}) });
      } catch (error) {
        // The session is over and recorded; a reminder that could not go out leaves it as it is.
        if (!(error instanceof ActivityFailure)) throw error;
        log.warn('recovery reminder not sent: its retries ran out', { cartId: session.cartId });
      }
    },
  };
}
