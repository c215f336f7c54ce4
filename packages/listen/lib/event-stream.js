/**
 * The merchant's side of `GET /v2/merchant/events/stream` (docs/webhooks.md): one
 * connection after another, each resuming from the last message's id, for as long as the caller reads.
 */

/** The API answered what no retry changes (a refused key, a refused query): said once, and the end. */
export class StreamRefused extends Error {
  name = 'StreamRefused';
}

/**
 * A message: `{event, data, id}`, `ready` when a connection opens, then one per event (its name).
 */

/** The server comments at least every 15 s: a connection silent for three times that is dead, however it looks. */
const SILENCE_MS = 45_000;
const FIRST_RETRY_MS = 500;
const LONGEST_RETRY_MS = 15_000;

/** Four statuses say the request itself is wrong; anything else (5xx, 429, a proxy's page) may pass. */
const REFUSED = new Set([400, 401, 404, 405]);

async function refusal(response) {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text);
    const fields = (body.errors ?? []).map((e) => `\n  ${e.path}: ${e.message}`).join('');
    return new StreamRefused(`the API answered ${response.status}: ${body.message ?? text}${fields}`);
  } catch {
    return new StreamRefused(`the API answered ${response.status}${response.status === 404 ? ': is --api-url the address of the API?' : ''}`);
  }
}

/**
 * The messages of one response body, as the SSE specification parses them, those with data only (every
 * message of this stream has some); comments only keep it alive.
 */
async function* messagesOf(body, alive) {
  let buffer = '';
  let message = { event: '', data: [], id: '' };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    alive();
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (message.data.length > 0) yield { event: message.event || 'message', data: message.data.join('\n'), id: message.id };
        message = { event: '', data: [], id: message.id };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') message.event = value;
      else if (field === 'data') message.data.push(value);
      else if (field === 'id') message.id = value;
    }
  }
}

const pause = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Every message of the stream, across reconnections: a lost connection is tried again after 0.5 s,
 * then twice as long each time up to 15 s, and back to 0.5 s once one opens. Each try sends the last
 * id received as Last-Event-ID, so the events between are neither lost nor repeated. Ends when
 * `signal` aborts; throws StreamRefused when the API refuses the request itself. `options`: `apiUrl`,
 * `apiKey`, `types` (event names, or all), `signal`, `onDisconnect(reason, retryInMs)` for each lost connection.
 */
export async function* followEvents(options) {
  const url = new URL('/v2/merchant/events/stream', options.apiUrl);
  if (options.types) url.searchParams.set('types', options.types.join(','));
  let lastId = '';
  let retryMs = FIRST_RETRY_MS;
  while (!options.signal.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort(options.signal.reason);
    options.signal.addEventListener('abort', stop, { once: true });
    let silence = setTimeout(() => connection.abort(new Error(`nothing heard for ${SILENCE_MS / 1000} s`)), SILENCE_MS);
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(new Error(`nothing heard for ${SILENCE_MS / 1000} s`)), SILENCE_MS);
    };
    let reason;
    try {
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: connection.signal,
      });
      if (REFUSED.has(response.status)) throw await refusal(response);
      if (response.status !== 200 || !response.body) throw new Error(`the API answered ${response.status}`);
      for await (const message of messagesOf(response.body, alive)) {
        if (message.event === 'ready') retryMs = FIRST_RETRY_MS;
        lastId = message.id;
        yield message;
      }
      reason = 'the API ended the stream';
    } catch (err) {
      if (err instanceof StreamRefused) throw err;
      // fetch's own message ("fetch failed", "terminated") says little without its cause's ("connect ECONNREFUSED …").
      const failure = connection.signal.aborted ? connection.signal.reason : err;
      reason = [failure.message, failure.cause?.message].filter(Boolean).join(': ');
    } finally {
      clearTimeout(silence);
      options.signal.removeEventListener('abort', stop);
    }
    if (options.signal.aborted) return;
    options.onDisconnect(reason, retryMs);
    await pause(retryMs, options.signal);
    retryMs = Math.min(retryMs * 2, LONGEST_RETRY_MS);
  }
}
