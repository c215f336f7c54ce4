import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessRow, mayGrant, roleTableMarkdown } from '../../web/dashboard/access.js';

const DOC = path.resolve(import.meta.dirname, '../../docs/dashboard.md');

describe('the role table (web/dashboard/access.ts)', () => {
  it('is in docs/dashboard.md exactly as the code has it', () => {
    const doc = readFileSync(DOC, 'utf8');
    const between = /<!-- role-table:start -->\n([\s\S]*?)\n<!-- role-table:end -->/.exec(doc);
    expect(between, 'docs/dashboard.md has the role-table markers').not.toBeNull();
    expect(between![1], 'docs/dashboard.md: paste roleTableMarkdown() of web/dashboard/access.ts between the markers').toBe(roleTableMarkdown());
  });

  it('finds the row of a request by method and path, the first that matches, and none for anything else', () => {
    expect(accessRow('GET', '/orders/export.csv')?.path).toBe('/orders/export.csv');
    expect(accessRow('GET', '/orders/cart_1')?.path).toBe('/orders/:cartId');
    expect(accessRow('HEAD', '/orders')?.path).toBe('/orders');
    expect(accessRow('POST', '/orders/cart_1/refunds')?.access).toEqual(['owner', 'support']);
    expect(accessRow('GET', '/temporal')?.path).toBe('/temporal/*');
    expect(accessRow('GET', '/temporal/namespaces/default')?.path).toBe('/temporal/*');
    expect(accessRow('DELETE', '/orders')).toBeUndefined();
    expect(accessRow('GET', '/orders/a/b/c')).toBeUndefined();
    expect(accessRow('GET', '/nothing-here')).toBeUndefined();
  });

  it('lets nobody grant a role they do not hold', () => {
    expect(mayGrant('owner', 'support')).toBe(true);
    expect(mayGrant('owner', 'owner')).toBe(true);
    expect(mayGrant('owner', 'analyst')).toBe(true);
    expect(mayGrant('developer', 'owner')).toBe(false);
    expect(mayGrant('support', 'analyst')).toBe(false);
    expect(mayGrant('operator_admin', 'operator')).toBe(true);
    expect(mayGrant('operator', 'operator_admin')).toBe(false);
    expect(mayGrant('operator_admin', 'owner')).toBe(false);
  });
});
