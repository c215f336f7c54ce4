import { z } from 'zod';

/**
 * Query parameters typed as what they are, integer or boolean, in the OpenAPI document and in the
 * parsed query, while the URL carries strings: each string is converted before validation, and only
 * the spellings the API has always accepted are converted (digits; `true`, `false`), so nothing new
 * is accepted and a generated client sends the number or boolean it was given.
 */

const WHOLE_NUMBER = /^\d{1,9}$/;

/** `limit`: a page size from 1 to `max`. */
export function pageSizeParameter(max: number) {
  const message = `must be a whole number from 1 to ${max}`;
  return z.preprocess((v) => (typeof v === 'string' && WHOLE_NUMBER.test(v) ? Number(v) : v), z.int({ error: message }).min(1, message).max(max, message));
}

/** `true` or `false`. */
export const booleanParameter = () => z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ error: 'must be true or false' }));
