import { z } from 'zod';

/**
 * An ISO 8601 date-time with its offset, as a filter or a deadline the merchant sends: in the years
 * 0001 to 9999 once the offset is applied. ISO 8601 also spells year 0000, and `9999-12-31T23:00:00-05:00`
 * is in year 10000 in UTC: PostgreSQL's timestamptz takes neither, and the caller got a 500.
 */
export function zonedDateTime(error: string) {
  return z.iso.datetime({ offset: true, error }).refine((value) => {
    const at = new Date(value);
    // A value that is no date-time at all has its issue from the format already.
    return Number.isNaN(at.getTime()) || (at.getUTCFullYear() >= 1 && at.getUTCFullYear() <= 9999);
  }, 'must be between the years 0001 and 9999 in UTC');
}
