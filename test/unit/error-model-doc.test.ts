import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../application/errors.js';

/**
 * docs/decisions/error-model.md: "the set of codes is closed and published as an enum in the OpenAPI
 * document. Clients branch on it". Its table is that set as documented; ERROR_STATUS is the enum the
 * OpenAPI document publishes (application/errors.ts errorBodySchema). They must name the same codes.
 */
describe('the error model documents every code the API can answer', () => {
  const doc = readFileSync(new URL('../../docs/decisions/error-model.md', import.meta.url), 'utf8');
  const documented = new Set([...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => `${m[1]} ${m[2]}`));

  it('lists each ERROR_STATUS code with its status in the Codes table', () => {
    const missing = Object.entries(ERROR_STATUS)
      .map(([code, status]) => `${code} ${status}`)
      .filter((entry) => !documented.has(entry));
    expect(missing).toEqual([]);
  });
});
