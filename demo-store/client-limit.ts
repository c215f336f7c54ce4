/**
 * A count per client address over a fixed window, e.g. wrong passwords or orders a minute. Only
 * `trackedClients` addresses are kept at once; beyond that, the oldest windows are dropped, so the
 * map stays bounded whoever calls.
 */
export function perClientLimit(settings: { max: number; windowMs: number; trackedClients: number }) {
  const windows = new Map<string, { startedAt: number; count: number }>();
  const windowOf = (address: string) => {
    let window = windows.get(address);
    if (!window || Date.now() - window.startedAt > settings.windowMs) {
      windows.delete(address);
      if (windows.size >= settings.trackedClients) windows.delete(windows.keys().next().value!);
      window = { startedAt: Date.now(), count: 0 };
      windows.set(address, window);
    }
    return window;
  };
  return {
    /** Whether this address used up its count for this window. */
    reached: (address: string): boolean => windowOf(address).count >= settings.max,
    count(address: string): void {
      windowOf(address).count++;
    },
  };
}
