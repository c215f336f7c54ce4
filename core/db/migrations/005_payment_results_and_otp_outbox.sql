-- The outcome of a session in the ledger: the card as brand + last4 only, and why it failed
-- (a processor decline code, or `otp_locked` when the customer ran out of one-time-code attempts).
alter table carts
  add column payment_brand text,
  add column payment_last4 text check (payment_last4 ~ '^\d{4}$'),
  add column failure_code text;

-- Development/sandbox delivery of one-time codes: the message a real SMS or email provider would
-- send. Recipient and code are AES-256-GCM sealed under DATA_ENCRYPTION_KEY, so the database never
-- holds a code in clear; the production worker refuses to run with this sender.
create table otp_outbox (
  id bigint generated always as identity primary key,
  cart_id text not null references carts(cart_id),
  channel text not null check (channel in ('email', 'sms')),
  recipient_hint text not null,
  recipient_sealed bytea not null,
  code_sealed bytea not null,
  created_at timestamptz not null default now()
);
create index otp_outbox_cart on otp_outbox (cart_id, id desc);
