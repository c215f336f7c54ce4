/**
 * A Cookie header with each `Set-Cookie` of an answer put in, a cookie of the same name replaced: what
 * a browser keeps between requests, for the drivers that post the checkout's forms without one.
 */
export function withCookies(cookie: string, setCookies: string[]): string {
  const jar = new Map(
    cookie
      .split(';')
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => [pair.split('=')[0]!, pair] as const),
  );
  for (const set of setCookies) {
    const pair = set.split(';')[0]!.trim();
    jar.set(pair.split('=')[0]!, pair);
  }
  return [...jar.values()].join('; ');
}
