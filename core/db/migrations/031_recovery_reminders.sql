-- Abandoned-cart recovery's reminder (docs/abandoned-cart-recovery.md, activities/cart-session/reminder.ts).
-- When the one reminder of an abandoned cart was claimed: set in the transaction that decides to send
-- it (and, for the sandbox outbox, writes it), so a retried activity or a second worker finds it set
-- and sends nothing. Null: no reminder went out (none was asked for, or none was due).
alter table carts add column reminder_sent_at timestamptz;

-- The sandbox outbox holds reminders beside codes: a reminder has its recovery link, sealed like the
-- code (the link opens a session that offers the customer's contact), and no code.
alter table otp_outbox
  add column kind text not null default 'code' check (kind in ('code', 'reminder')),
  alter column code_sealed drop not null,
  add column link_sealed bytea,
  add constraint otp_outbox_kind_content check (
    (kind = 'code' and code_sealed is not null and link_sealed is null)
    or (kind = 'reminder' and link_sealed is not null and code_sealed is null));
