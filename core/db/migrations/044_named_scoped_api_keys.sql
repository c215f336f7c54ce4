-- Named, scoped API keys (issue 51, point 5): a merchant has several keys, each with a name and a
-- scope: `full` (everything), `carts` (create carts only), `read` (orders and events only). The key
-- every merchant has now becomes a `full` key named "Default". `last_used_at` is written at most once a
-- minute per key (core/merchants/api-keys.ts), so a busy key costs no write per request.
alter table merchant_api_keys
  add column name text not null default 'Default' check (length(name) between 1 and 60),
  add column scope text not null default 'full' check (scope in ('full', 'carts', 'read')),
  add column last_used_at timestamptz;
drop index merchant_api_keys_one_active;
create index merchant_api_keys_active on merchant_api_keys (platform_uuid, created_at) where revoked_at is null;

-- Create-cart (migration 039) with any of the merchant's active keys that may create carts (`full` or
-- `carts`); a `read` key is refused as `key_scope` (403, naming its scope) before anything is counted
-- or written, like `key_required`. The rest is 039's, unchanged.
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

  if ledger_row is not null then
    insert into carts (cart_id, platform_uuid, environment, merchant_name, status, currency, amount, store, cart, expires_on, created_at,
                       customer_started_at, created_with)
    select r.cart_id, platform, env, merchant, 'pending', r.currency, r.amount, ledger_row -> 'store', ledger_row -> 'cart', r.expires_on,
      r.created_at, null, case when with_key then 'api_key' else 'public' end
    from jsonb_to_record(ledger_row) as r(cart_id text, currency text, amount bigint, expires_on timestamptz, created_at timestamptz);
    row_inserted := true;
  end if;
  admission := 'admitted';
  return next;
end
$$;
