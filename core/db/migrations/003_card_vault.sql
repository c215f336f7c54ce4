-- The short-lived card vault: a card lives here, AES-256-GCM sealed, only between the customer
-- pressing Pay and the authorization; it is deleted when taken or when it expires.
create table card_vault (
  token text primary key,
  cart_id text not null references carts(cart_id),
  sealed bytea not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index card_vault_expires on card_vault (expires_at);
