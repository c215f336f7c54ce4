import { describe, expect, it } from 'vitest';
import { listAudit, recordAudit } from '../../core/audit/audit-log.js';
import { useTestStack } from '../support/test-stack.js';

describe('audit log: appended by core/audit/audit-log.ts, never changed', () => {
  const stack = useTestStack();

  it('records an entry and lists it back with its actor, address, target and before/after', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Audit Store' });
    const id = await recordAudit(stack.db, {
      actor: { type: 'user', id: 'user-1', email: 'ana@audit.example' },
      ip: '203.0.113.9',
      merchantId: platformUuid,
      action: 'settings.update',
      target: 'merchant:brand_colour',
      before: { brandColour: null },
      after: { brandColour: '#112233' },
    });
    const [entry] = await listAudit(stack.db, { merchantId: platformUuid });
    expect(entry).toMatchObject({
      id,
      merchantId: platformUuid,
      actor: { type: 'user', id: 'user-1', email: 'ana@audit.example' },
      ip: '203.0.113.9',
      action: 'settings.update',
      target: 'merchant:brand_colour',
      before: { brandColour: null },
      after: { brandColour: '#112233' },
    });
    expect(await listAudit(stack.db, { merchantId: platformUuid, actor: 'ANA@' })).toHaveLength(1);
    expect(await listAudit(stack.db, { merchantId: platformUuid, action: 'order.refund' })).toHaveLength(0);
    expect(await listAudit(stack.db, { merchantId: platformUuid, from: new Date(Date.now() + 60_000) })).toHaveLength(0);
  });

  it('refuses a before/after that would carry a secret', async () => {
    await expect(
      recordAudit(stack.db, {
        actor: { type: 'operator', id: 'operator' },
        ip: null,
        merchantId: null,
        action: 'settings.update',
        target: null,
        after: { webhookSecret: 'whsec_x' },
      }),
    ).rejects.toThrow(/names a secret/);
    // When the old secrets stop signing is no secret: a rotation records it.
    const rotation = await recordAudit(stack.db, {
      actor: { type: 'operator', id: 'operator' },
      ip: null,
      merchantId: null,
      action: 'webhook_secret.rotate',
      target: 'webhook_endpoint:first',
      after: { previousSecretsExpireAt: '2030-01-31T12:00:00.000Z' },
    });
    expect(rotation).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the application’s own connection cannot UPDATE, DELETE or TRUNCATE an entry', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Append Only Store' });
    const id = await recordAudit(stack.db, {
      actor: { type: 'api_key', id: 'key-1', name: 'Default' },
      ip: '198.51.100.1',
      merchantId: platformUuid,
      action: 'order.refund',
      target: 'order:c-1',
    });
    await expect(stack.db`update audit_log set action = 'order.void' where id = ${id}`).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(stack.db`delete from audit_log where id = ${id}`).rejects.toThrow(/append-only: DELETE refused/);
    await expect(stack.db`truncate audit_log`).rejects.toThrow(/append-only: TRUNCATE refused/);
    const [row] = await stack.db<{ action: string }[]>`select action from audit_log where id = ${id}`;
    expect(row).toEqual({ action: 'order.refund' });
  });
});
