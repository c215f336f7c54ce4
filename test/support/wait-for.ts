/**
 * Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. A probe
 * that throws is asked again like one that answered undefined: an answer that is not there yet (a
 * list without its first entry, a row not yet written) is "not yet", not a failure. The timeout's
 * error carries the last one thrown, so a probe that can never succeed still says why.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 15_000, intervalMs = 100, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const reason = lastError === undefined ? '' : `; the last probe threw: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
