import { describe, expect, it } from 'vitest';
import { auditCsv } from '../../core/audit/audit-csv.js';
import type { AuditEntry } from '../../core/audit/audit-log.js';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b',
  at: new Date('2030-01-31T12:00:00.000Z'),
  merchantId: null,
  actor: { type: 'operator', id: 'operator-token' },
  ip: null,
  action: 'settings.update',
  target: null,
  before: null,
  after: null,
  ...over,
});

describe('the audit log as CSV', () => {
  it('has one header line and one line per entry, CRLF, with before/after as JSON', () => {
    const csv = auditCsv([entry({ before: { brandColour: null }, after: { brandColour: '#112233' }, target: 'merchant:brandColour' })]);
    expect(csv.split('\r\n')).toEqual([
      'id,at,merchantId,actorType,actorId,actor,ip,action,target,before,after',
      '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b,2030-01-31T12:00:00.000Z,,operator,operator-token,,,settings.update,merchant:brandColour,"{""brandColour"":null}","{""brandColour"":""#112233""}"',
      '',
    ]);
  });

  it('never lets a spreadsheet run a merchant’s text: a key name or email starting with =, +, -, @ gets an apostrophe', () => {
    const csv = auditCsv([
      entry({ actor: { type: 'api_key', id: 'k1', name: '=HYPERLINK("http://evil")' } }),
      entry({ actor: { type: 'user', id: 'u1', email: '@SUM(A1)' } }),
    ]);
    const lines = csv.split('\r\n');
    expect(lines[1]).toContain(`,"'=HYPERLINK(""http://evil"")",`);
    expect(lines[2]).toContain(`,'@SUM(A1),`);
    expect(csv).not.toMatch(/(^|,)[=@+-]/m);
  });
});
