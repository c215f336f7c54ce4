-- Create-cart's admission no longer writes the cart's row (migrations 035, 039 and 044 did, in sandbox,
-- when no Idempotency-Key came). The row's insert is logged, so the statement's commit waited for a WAL
-- flush while it held the locks of the rate-limit rows it had just counted, the rows every create-cart
-- from one address and one merchant counts: migration 013's queue, back on the same rows. Measured alone
-- (scripts/bench/admission-statement.ts), the row in the statement cost PostgreSQL more CPU per cart than
-- the two statements do, at a lower rate. The ledger now inserts the row in a statement of its own
-- (core/checkout/cart-ledger.ts: insertCart), as it already did in production and with an Idempotency-Key.
-- `ledger_row` and `row_inserted` stay in the signature for the instances of 1.2 still calling it during
-- a deploy: they read `row_inserted` false and insert the row themselves. A later migration drops both.
create or replace function admit_cart_request(
  client_limits jsonb,
  platform uuid,
  env text,
  presented_key_hash bytea,
  keyed_limits jsonb,
  public_limits jsonb,
  ledger_row jsonb
)
returns table (
  admission text,
  refused_limit int,
  retry_after int,
  opened_window boolean,
  merchant text,
  registered_domains text[],
  verified_domains text[],
  with_key boolean,
  row_inserted boolean
)
language plpgsql as $$
declare
  hit record;
  counted_limits int := 0;
  first_of_list int;
  requires_key boolean;
  read_key boolean;
  limits jsonb;
begin
  opened_window := false;
  with_key := false;
  -- Always false: the cart's row is the ledger's insert, after this statement has committed.
  row_inserted := false;
  -- Two lists of limits, counted alike: the client's, then (once the merchant lets the request through) the merchant's.
  for list in 1..2 loop
    if list = 1 then
      limits := client_limits;
    else
      select m.name,
        array(select d.domain from merchant_domains d where d.platform_uuid = m.platform_uuid order by d.domain),
        array(select d.domain from merchant_domains d where d.platform_uuid = m.platform_uuid and d.verified_at is not null order by d.domain),
        exists(select 1 from merchant_api_keys k where k.platform_uuid = m.platform_uuid and k.revoked_at is null
          and k.key_hash = presented_key_hash and k.scope in ('full', 'carts')),
        exists(select 1 from merchant_api_keys k where k.platform_uuid = m.platform_uuid and k.revoked_at is null
          and k.key_hash = presented_key_hash and k.scope = 'read'),
        m.require_api_key_for_carts
      into merchant, registered_domains, verified_domains, with_key, read_key, requires_key
      from merchants m where m.platform_uuid = platform and m.environment = env and m.status = 'active';
      if merchant is null then
        admission := 'unknown_platform';
        return next;
        return;
      end if;
      if read_key then
        admission := 'key_scope';
        return next;
        return;
      end if;
      if requires_key and not with_key then
        admission := 'key_required';
        return next;
        return;
      end if;
      if presented_key_hash is not null and not with_key then
        admission := 'key_invalid';
        return next;
        return;
      end if;
      limits := case when with_key then keyed_limits else public_limits end;
    end if;
    first_of_list := counted_limits;
    for hit in select * from count_rate_limit_hits_in_order(limits) loop
      opened_window := opened_window or hit.counted = 1;
      if hit.counted > (limits -> (counted_limits - first_of_list) ->> 'max')::int then
        admission := 'rate_limited';
        refused_limit := counted_limits;
        retry_after := hit.retry_after_seconds;
        return next;
        return;
      end if;
      counted_limits := counted_limits + 1;
    end loop;
  end loop;

  admission := 'admitted';
  return next;
end
$$;
