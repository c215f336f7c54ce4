import { describe, expect, it } from 'vitest';
import { freePortBetween } from '../../scripts/free-port.js';

describe('freePortBetween', () => {
  it('never hands out a port that fetch refuses to connect to', async () => {
    const picked = new Set<number>();
    for (let i = 0; i < 40; i++) picked.add(await freePortBetween(10_079, 10_082));
    expect(picked.has(10_080)).toBe(false);
    expect([...picked].every((port) => port === 10_079 || port === 10_081)).toBe(true);
  });

  it('says so when the range holds only blocked ports', async () => {
    await expect(freePortBetween(10_080, 10_081)).rejects.toThrow('no free port between 10080 and 10081');
  });
});
