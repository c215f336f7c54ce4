import { ApiError } from '../../application/errors.js';
import { LINK_REFUSAL_TEXT, type LinkRefusal } from '../../core/links/link-uses.js';

/** The sandbox helpers' refusals, in the documented envelope (./sandbox-paths.ts documents each). */

export const cartNotFound = (cartId: string) =>
  new ApiError('NOT_FOUND', 'No sandbox cart of yours has this cartId. Check the cartId and that the API key is of this sandbox.', [
    { path: 'cartId', message: `${cartId.length > 64 ? 'this value' : cartId} is not one of your carts in this environment` },
  ]);

export const sessionEnded = (status: string) =>
  new ApiError('SESSION_ENDED', `This session has already ended (${status}); there is nothing left to drive.`, [
    { path: 'cartId', message: `is not an open session: it is ${status}` },
  ]);

export const linkRefusedPay = (paymentLinkId: string, refusal: LinkRefusal) =>
  new ApiError(
    'SESSION_ENDED',
    `This session was opened from payment link ${paymentLinkId}, which is ${LINK_REFUSAL_TEXT[refusal]}: the page refuses its Pay, and so does the helper. Nothing was paid; the session stays open until it expires.`,
    [{ path: 'cartId', message: `its payment link is ${LINK_REFUSAL_TEXT[refusal]}` }],
  );

export const sessionInBrowser = () =>
  new ApiError(
    'SESSION_IN_BROWSER',
    'A browser has started this checkout on the hosted page: the helpers drive only carts no browser has started, so the page and the helper never act for one customer together. Create a new cart.',
    [{ path: 'cartId', message: 'was started by a browser' }],
  );

export const nothingToAdvance = (to: string, message: string) =>
  new ApiError('NOTHING_TO_ADVANCE', `${message} Nothing was advanced.`, [{ path: 'to', message: `no ${to} timer is running in this session` }]);
