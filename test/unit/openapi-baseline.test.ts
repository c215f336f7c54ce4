import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../api/docs/openapi.js';
import { jsonDifferences } from '../support/json-differences.js';

const BASELINE = path.resolve(import.meta.dirname, '../fixtures/openapi/baseline.json');
// The settings scripts/lint-openapi.ts builds with, as the baseline was dumped.
const CONFIG = { apiBaseUrl: 'http://localhost:3000', checkoutBaseUrl: 'http://localhost:3001', environment: 'sandbox' as const };

describe('the OpenAPI document', () => {
  // The baseline is main's document when the routes started to document themselves (issue 49):
  // a change to it is a change of the API's description, made on purpose and committed with it.
  it('is identical to the committed baseline (test/fixtures/openapi/baseline.json)', () => {
    const generated: unknown = JSON.parse(JSON.stringify(buildOpenApiDocument(CONFIG)));
    const baseline: unknown = JSON.parse(readFileSync(BASELINE, 'utf8'));
    expect(jsonDifferences(generated, baseline)).toEqual([]);
    expect(generated).toStrictEqual(baseline);
  });
});
