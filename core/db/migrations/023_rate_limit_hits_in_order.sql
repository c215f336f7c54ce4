-- Counts one hit against each limit in turn and stops at the first one over its max: that one is
-- counted, the ones after it are not, exactly as when each is counted by a statement of its own and
-- the first refusal ends the request, but in one round trip. The one place a hit is counted
-- (core/rate-limits.ts: countHitsInOrder, and a single limit's hit).
-- `limits` is a JSON array of {"bucket": text, "max": int, "windowSeconds": int}, in counting order.
create function count_rate_limit_hits_in_order(limits jsonb)
returns table (counted int, retry_after_seconds int, window_opened_at timestamptz)
language plpgsql as $$
declare
  l record;
begin
  for l in
    select x.bucket, x.max, x."windowSeconds" as window_seconds
    from jsonb_array_elements(limits) with ordinality as e(value, position),
      jsonb_to_record(e.value) as x(bucket text, max int, "windowSeconds" int)
    order by e.position
  loop
    window_opened_at := to_timestamp(floor(extract(epoch from now()) / l.window_seconds) * l.window_seconds);
    insert into rate_limit_windows as w (bucket, window_start, window_end, hits)
    values (l.bucket, window_opened_at, window_opened_at + make_interval(secs => l.window_seconds), 1)
    on conflict (bucket, window_start) do update set hits = w.hits + 1
    returning w.hits, greatest(1, ceil(extract(epoch from w.window_end - now())))::int into counted, retry_after_seconds;
    return next;
    exit when counted > l.max;
  end loop;
end
$$;
