import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../../core/db/connection-loss.js';

describe('isConnectionLoss', () => {
  it('recognises a dropped socket, postgres.js closing a connection and the server shutting down', () => {
    expect(isConnectionLoss(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104 }))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED', errno: 'CONNECTION_CLOSED' }))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(true);
  });

  it('leaves every other failure to end the process', () => {
    expect(isConnectionLoss(new TypeError('Cannot read properties of undefined'))).toBe(false);
    expect(isConnectionLoss(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isConnectionLoss('ECONNRESET')).toBe(false);
    expect(isConnectionLoss(undefined)).toBe(false);
  });
});
