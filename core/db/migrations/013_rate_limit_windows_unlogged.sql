-- Rate-limit counters skip the write-ahead log. Every create-cart and every page post counts hits on
-- the same few rows (one client address, one merchant), and each count's commit waited for a WAL
-- flush while holding its row's lock, so concurrent requests queued on those rows one flush at a time
-- (reports/bench.md, "create-cart"). A commit that touched only unlogged tables does not wait for a
-- flush. The price: after a PostgreSQL crash the table starts empty, so each limit's current window
-- starts over once; a counter is advisory, unlike the ledger, which stays logged.
alter table rate_limit_windows set unlogged;
