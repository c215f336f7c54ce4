/** `/`-joined with `~0` and `~1` escapes, as RFC 6901 spells a JSON pointer. */
const pointer = (path: string[]) => path.map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * Where two JSON values differ, one JSON pointer per differing place, each with both values: a diff
 * a reader can act on, where a deep-equality failure on a document of 400 kB prints pages.
 * Arrays differ as a whole (their order is their meaning); key order does not count.
 */
export function jsonDifferences(actual: unknown, expected: unknown, path: string[] = []): string[] {
  if (JSON.stringify(actual) === JSON.stringify(expected)) return [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(actual) && isObject(expected)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].flatMap((key) => jsonDifferences(actual[key], expected[key], [...path, key]));
  }
  return [`${pointer(path) || '/'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
