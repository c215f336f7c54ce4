-- A payment link's uses, reserved at Pay (core/links/link-uses.ts, docs/payment-links.md): when the
-- session's customer pressed Pay on a session of a link (or of a retry or recovery of one, which carry
-- its payment_link_id). The reservation holds one of the link's maxUses while the session is open
-- (pending, processing) and becomes the use itself once the session is paid (paid_at); a session that
-- fails, is cancelled or abandoned holds none, whatever this column says, so nothing has to clear it.
-- Null: Pay was never let through on this session (and for every cart that is not a link's).
alter table carts add column link_use_reserved_at timestamptz;
