import { csvCell } from '../orders/orders-csv.js';
import type { AuditEntry } from './audit-log.js';

/** The audit log as CSV (RFC 4180, CRLF lines), formula-safe as the orders export is: every cell through csvCell. */
export const AUDIT_CSV_COLUMNS = ['id', 'at', 'merchantId', 'actorType', 'actorId', 'actor', 'ip', 'action', 'target', 'before', 'after'] as const;

const line = (cells: readonly string[]) => `${cells.map(csvCell).join(',')}\r\n`;

const actorLabel = (entry: AuditEntry) => (entry.actor.type === 'api_key' ? entry.actor.name : entry.actor.type === 'user' ? entry.actor.email : '');

export function auditCsv(entries: readonly AuditEntry[]): string {
  return [
    line(AUDIT_CSV_COLUMNS),
    ...entries.map((e) =>
      line([
        e.id,
        e.at.toISOString(),
        e.merchantId ?? '',
        e.actor.type,
        e.actor.id,
        actorLabel(e),
        e.ip ?? '',
        e.action,
        e.target ?? '',
        e.before ? JSON.stringify(e.before) : '',
        e.after ? JSON.stringify(e.after) : '',
      ]),
    ),
  ].join('');
}
