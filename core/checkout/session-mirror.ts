import type { Db } from '../db/client.js';

/**
 * The write path of `cart_session_mirrors` (migration 061): the hosted page's copy of a cart session's
 * state, so that its loads and posts need no Temporal query (docs/decisions/page-first-load.md, "The
 * state mirror"). The workflow stays the authority: the copy is only what the page shows and derives
 * update ids from, and every update's validator still judges it.
 *
 * The protocol, per update the page sends: `beginMirroredUpdate` before it (the copy is dropped, the
 * generation and the count of updates in flight go up), `finishMirroredUpdate` after it. The update's
 * result is kept only when no other update ran beside it or since the state it acted on was read, so a
 * kept copy is the workflow's state after the last update sent. A writer that dies between the two
 * leaves the count up and the copy null: that cart is read with a query from then on, never from a
 * stale copy.
 */

/** `S`: the workflow's state as its contract names it (workflows/cart-session/messages.ts `CartSessionState`). */
export interface SessionMirror<S> {
  /** The mirrored state, when a copy is kept and no update is in flight; absent otherwise. */
  state?: S;
  /** The generation the state read with it is current at; absent while an update is in flight (no read is current then). */
  generation?: number;
}

export async function readSessionMirror<S>(db: Db, cartId: string): Promise<SessionMirror<S>> {
  const [row] = await db<{ generation: string; in_flight: number; state: S | null }[]>`
    select generation, in_flight, state from cart_session_mirrors where cart_id = ${cartId}`;
  if (!row) return { generation: 0 };
  if (row.in_flight !== 0) return {};
  return { generation: Number(row.generation), ...(row.state ? { state: row.state } : {}) };
}

/** An update under way: its own generation, and whether the state it acts on was current when it began. */
export interface MirroredUpdate {
  cartId: string;
  generation: number;
  current: boolean;
}

/**
 * Before an update is sent: the copy goes, so whatever happens next no load reads the state from
 * before it. `seen`: the generation the acting state was read at (SessionMirror.generation).
 */
export async function beginMirroredUpdate(db: Db, cartId: string, seen: number | undefined): Promise<MirroredUpdate> {
  const [row] = await db<{ generation: string }[]>`
    insert into cart_session_mirrors (cart_id, generation, in_flight, state) values (${cartId}, 1, 1, null)
    on conflict (cart_id) do update set
      generation = cart_session_mirrors.generation + 1, in_flight = cart_session_mirrors.in_flight + 1, state = null
    returning generation`;
  const generation = Number(row!.generation);
  return { cartId, generation, current: seen !== undefined && generation === seen + 1 };
}

/**
 * After the update answered: `state`, the workflow's answer, is kept if this update alone moved the
 * session since its acting state was read; otherwise (or with no state: a refusal, an answer that is
 * not the update's own) the copy stays dropped.
 */
export async function finishMirroredUpdate(db: Db, update: MirroredUpdate, state: object | undefined): Promise<void> {
  const kept = update.current && state ? db.json(state as never) : null;
  await db`
    update cart_session_mirrors set in_flight = in_flight - 1,
      state = case when generation = ${update.generation} and in_flight = 1 then ${kept}::jsonb else null end
    where cart_id = ${update.cartId}`;
}

/**
 * For a caller that updates the session outside the page (tests, benchmarks): the page asks the
 * workflow for this cart's state from now on, as it does after a writer died mid-update.
 */
export async function dropSessionMirror(db: Db, cartId: string): Promise<void> {
  await beginMirroredUpdate(db, cartId, undefined);
}
