import { createHash } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { Inventory } from './inventory.js';
import { pageDifferences, type ReceivedPage } from './page-walk.js';

/**
 * The one owner of `integrity_check_runs` and `integrity_alerts` (migration 052): one tamper check run
 * of the payment pages (issue 52, point 4) and the alerts it raises. A run walks every page variant,
 * compares what it received with the inventory and the header baseline (pageDifferences), and records
 * itself whatever it found. One alert per distinct difference: a run that finds it again touches the
 * same alert; an acknowledged alert a later run no longer finds is closed.
 */

export interface Difference {
  variant: string;
  difference: string;
}

export interface CheckResult {
  runId: string;
  pages: number;
  differences: Difference[];
  /** The alerts this run raised: differences no earlier unclosed alert had. */
  raised: Alert[];
  durationMs: number;
}

/** What one scheduled run answers (its workflow's result, in history): counts only, no page contents. */
export interface PageIntegrityCheckResult {
  runId: string;
  pages: number;
  differences: number;
  /** New alerts this run raised. */
  raised: number;
}

export interface Alert {
  id: string;
  variant: string;
  difference: string;
  status: 'open' | 'acknowledged' | 'closed';
  raisedAt: Date;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  note: string | null;
  closedAt: Date | null;
  seenInLastRun: boolean;
}

export interface CheckRun {
  id: string;
  startedAt: Date;
  finishedAt: Date | null;
  pages: number | null;
  result: 'clean' | 'differences' | 'failed' | null;
  differences: number | null;
  failure: string | null;
}

function fingerprintOf(d: Difference): string {
  return createHash('sha256').update(`${d.variant}\0${d.difference}`).digest('hex');
}

/** Every distinct difference of the pages walked, in the order found. */
export function differencesOf(
  pages: ReceivedPage[],
  approved: { inventory: Inventory; generatedHashes: ReadonlyMap<string, string>; production: boolean },
): Difference[] {
  const seen = new Map<string, Difference>();
  for (const page of pages)
    for (const difference of pageDifferences(page, approved)) {
      const d = { variant: page.variant, difference };
      seen.set(fingerprintOf(d), d);
    }
  return [...seen.values()];
}

/**
 * One run: recorded as started, the walk, the comparison, the alerts reconciled, recorded as finished.
 * A walk that fails is recorded as a failed run and the error rethrown (the schedule's workflow retries).
 */
export async function runTamperCheck(deps: {
  db: Db;
  walk: () => Promise<ReceivedPage[]>;
  approved: () => Promise<{ inventory: Inventory; generatedHashes: ReadonlyMap<string, string>; production: boolean }>;
}): Promise<CheckResult> {
  const { db } = deps;
  const started = Date.now();
  const [run] = await db<{ id: string }[]>`insert into integrity_check_runs default values returning id::text`;
  const runId = run!.id;
  let pages: ReceivedPage[];
  let differences: Difference[];
  try {
    pages = await deps.walk();
    differences = differencesOf(pages, await deps.approved());
  } catch (err) {
    const failure = err instanceof Error ? err.message : String(err);
    await db`update integrity_check_runs set finished_at = now(), result = 'failed', failure = ${failure.slice(0, 500)} where id = ${runId}`;
    throw err;
  }
  const raised = await db.begin(async (tx) => {
    const fresh: Alert[] = [];
    const fingerprints = differences.map(fingerprintOf);
    await tx`update integrity_alerts set seen_in_last_run = false where status <> 'closed'`;
    for (const [i, d] of differences.entries()) {
      const touched = await tx`
        update integrity_alerts set last_run_id = ${runId}, seen_in_last_run = true
        where fingerprint = ${fingerprints[i]!} and status <> 'closed' returning id`;
      if (touched.length > 0) continue;
      const [row] = await tx<AlertRow[]>`
        insert into integrity_alerts (fingerprint, variant, difference, first_run_id, last_run_id)
        values (${fingerprints[i]!}, ${d.variant}, ${d.difference}, ${runId}, ${runId}) returning ${tx.unsafe(ALERT_COLUMNS)}`;
      fresh.push(alertOf(row!));
    }
    await tx`
      update integrity_alerts set status = 'closed', closed_at = now(), closed_by_run_id = ${runId}
      where status = 'acknowledged' and not seen_in_last_run`;
    await tx`
      update integrity_check_runs set finished_at = now(), pages = ${pages.length},
        result = ${differences.length === 0 ? 'clean' : 'differences'}, differences = ${differences.length}
      where id = ${runId}`;
    return fresh;
  });
  return { runId, pages: pages.length, differences, raised, durationMs: Date.now() - started };
}

type AlertRow = {
  id: string;
  variant: string;
  difference: string;
  status: Alert['status'];
  raised_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  note: string | null;
  closed_at: Date | null;
  seen_in_last_run: boolean;
};

const ALERT_COLUMNS = 'id::text, variant, difference, status, raised_at, acknowledged_at, acknowledged_by, note, closed_at, seen_in_last_run';

function alertOf(row: AlertRow): Alert {
  return {
    id: row.id,
    variant: row.variant,
    difference: row.difference,
    status: row.status,
    raisedAt: row.raised_at,
    acknowledgedAt: row.acknowledged_at,
    acknowledgedBy: row.acknowledged_by,
    note: row.note,
    closedAt: row.closed_at,
    seenInLastRun: row.seen_in_last_run,
  };
}

/**
 * An operator's acknowledgement, with their note: the alert is closed at once when the latest run no
 * longer found its difference, otherwise when a later run does not. Undefined when there is no open alert of that id.
 */
export async function acknowledgeAlert(db: Db, input: { id: string; by: string; note: string }): Promise<Alert | undefined> {
  const [row] = await db<AlertRow[]>`
    update integrity_alerts set acknowledged_at = now(), acknowledged_by = ${input.by}, note = ${input.note},
      status = case when seen_in_last_run then 'acknowledged' else 'closed' end,
      closed_at = case when seen_in_last_run then null else now() end
    where id = ${input.id} and status = 'open' returning ${db.unsafe(ALERT_COLUMNS)}`;
  return row ? alertOf(row) : undefined;
}

/** Alerts not closed, newest first (the operator page). */
export async function listUnclosedAlerts(db: Db): Promise<Alert[]> {
  const rows = await db<AlertRow[]>`select ${db.unsafe(ALERT_COLUMNS)} from integrity_alerts where status <> 'closed' order by raised_at desc, id desc`;
  return rows.map(alertOf);
}

/** How many alerts are not closed (the open alerts gauge). */
export async function countUnclosedAlerts(db: Db): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from integrity_alerts where status <> 'closed'`;
  return row!.n;
}

/** Every alert raised, and every run started, within [from, to) (the evidence report). */
export async function checkHistory(db: Db, range: { from: Date; to: Date }): Promise<{ runs: CheckRun[]; alerts: Alert[] }> {
  const runs = await db<
    {
      id: string;
      started_at: Date;
      finished_at: Date | null;
      pages: number | null;
      result: CheckRun['result'];
      differences: number | null;
      failure: string | null;
    }[]
  >`select id::text, started_at, finished_at, pages, result, differences, failure from integrity_check_runs
    where started_at >= ${range.from} and started_at < ${range.to} order by started_at, id`;
  const alerts = await db<AlertRow[]>`select ${db.unsafe(ALERT_COLUMNS)} from integrity_alerts
    where raised_at >= ${range.from} and raised_at < ${range.to} order by raised_at, id`;
  return {
    runs: runs.map((r) => ({
      id: r.id,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      pages: r.pages,
      result: r.result,
      differences: r.differences,
      failure: r.failure,
    })),
    alerts: alerts.map(alertOf),
  };
}
