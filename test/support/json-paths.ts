/**
 * Every path in a JSON value down to `maxDepth`, with the value there: the places a mutation can
 * hit. Bounded, so a mutation that nested thousands of levels cannot make the test recurse that deep.
 */
export function jsonLeavesAndBranches(
  value: unknown,
  path: Array<string | number> = [],
  maxDepth = 10,
): Array<{ path: Array<string | number>; value: unknown }> {
  const here = path.length > 0 ? [{ path, value }] : [];
  if (path.length >= maxDepth) return here;
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => jsonLeavesAndBranches(v, [...path, i], maxDepth))];
  if (typeof value === 'object' && value !== null)
    return [...here, ...Object.entries(value).flatMap(([k, v]) => jsonLeavesAndBranches(v, [...path, k], maxDepth))];
  return here;
}

/** A copy of `value` with `at` replaced by `make(old)`, or removed when it returns `REMOVE`. */
export const REMOVE = Symbol('remove');
export function withAt(value: unknown, at: Array<string | number>, make: (old: unknown) => unknown): unknown {
  if (at.length === 0) return make(value);
  const [head, ...rest] = at;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  const next = withAt(copy[head!], rest, make);
  if (next === REMOVE) {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete copy[head!];
  } else copy[head!] = next;
  return copy;
}

export function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
