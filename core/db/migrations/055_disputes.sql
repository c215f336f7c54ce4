-- A dispute (chargeback) of a paid order, as its workflow dispute-<id> records it (core/checkout/disputes.ts).
-- The merchant's evidence is customer data: sealed (AES-256-GCM, the keyring), never in clear.
create table disputes (
  id text primary key,
  cart_id text not null references carts (cart_id),
  platform_uuid uuid not null,
  environment text not null,
  amount bigint not null check (amount > 0),
  currency text not null,
  reason text not null,
  status text not null check (status in ('needs_response', 'under_review', 'won', 'lost')),
  evidence_due_by timestamptz not null,
  evidence_sealed bytea,
  answer text check (answer in ('evidence', 'accept')),
  answered_at timestamptz,
  opened_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index disputes_cart on disputes (cart_id, opened_at desc);
-- Operators find disputes by status and due date.
create index disputes_status_due on disputes (status, evidence_due_by);
