import { parseArgs } from 'node:util';
import { EVENT_NAMES, unknownEventNames } from './events.js';
import { followEvents, StreamRefused } from './event-stream.js';
import { forwardEvent } from './forward.js';
import { newSecret } from './sign.js';

const HELP = `Forwards your events, as they happen, from the API to a URL on your machine. A merchant's command:
it needs the API's address and your API key, nothing of the deployment.

  hosted-checkout-listen --forward-to http://localhost:4000/webhooks [--events order_created,order_updated]
      [--api-url <url>] [--api-key <key>]

  --forward-to  where each event is POSTed, signed as a delivery is, with a secret printed at the start
  --events      only these events, comma-separated (${EVENT_NAMES.join(', ')})
  --api-url     the API's address; or HOSTED_CHECKOUT_API_URL
  --api-key     your API key (of the API's environment); or HOSTED_CHECKOUT_API_KEY

Prints one line per event with your endpoint's answer. Follows the API through restarts and lost
connections, resuming after the last event received. Ctrl-C stops it.
`;

class UsageError extends Error {}

/** The run's settings from its flags, then the merchant's environment; undefined for --help. */
function settingsOf(argv, env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      'api-url': { type: 'string' },
      'api-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const forwardTo = values['forward-to'];
  const apiUrl = values['api-url'] ?? env.HOSTED_CHECKOUT_API_URL;
  const apiKey = values['api-key'] ?? env.HOSTED_CHECKOUT_API_KEY;
  if (!forwardTo) throw new UsageError('--forward-to <url> is required: where to send the events, e.g. http://localhost:4000/webhooks');
  if (!apiUrl) throw new UsageError("the API's address is required: --api-url <url>, or HOSTED_CHECKOUT_API_URL");
  if (!apiKey) throw new UsageError('your API key is required: --api-key <key>, or HOSTED_CHECKOUT_API_KEY');
  const target = URL.canParse(forwardTo) ? new URL(forwardTo) : undefined;
  if (!target || !['http:', 'https:'].includes(target.protocol)) throw new UsageError(`--forward-to must be an http or https URL, not ${forwardTo}`);
  if (!URL.canParse(apiUrl)) throw new UsageError(`the API's address must be a URL, not ${apiUrl}`);
  const unknown = values.events === undefined ? [] : unknownEventNames(values.events);
  if (unknown.length > 0)
    throw new UsageError(
      `--events: ${unknown.map((name) => JSON.stringify(name)).join(', ')} ${unknown.length === 1 ? 'is not an event name' : 'are not event names'}; the events are ${EVENT_NAMES.join(', ')}`,
    );
  return { forwardTo: target, apiUrl, apiKey, types: values.events?.split(',') };
}

const clock = () => new Date().toISOString().slice(11, 19);

function answerOf(outcome) {
  if ('error' in outcome) return `→ ${outcome.error} after ${outcome.ms} ms`;
  const refused = outcome.status < 200 || outcome.status > 299;
  const excerpt = refused && outcome.excerpt.trim() ? `  ${JSON.stringify(outcome.excerpt.trim())}` : '';
  return `→ ${outcome.status} in ${outcome.ms} ms${excerpt}`;
}

/**
 * Follows the merchant's event stream and forwards each event to `--forward-to`, one at a time in the
 * order recorded, until `signal` aborts. 0 once stopped; 1 when the API refuses the key or the
 * request; 2 for a usage error. `out` has `stdout(text)` and `stderr(text)`.
 */
export async function runListen(argv, env, out, signal) {
  let settings;
  try {
    settings = settingsOf(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError || err.code?.startsWith('ERR_PARSE_ARGS'))) throw err;
    out.stderr(`${err.message}\n\n${HELP}`);
    return 2;
  }
  if (!settings) {
    out.stdout(HELP);
    return 0;
  }
  const { forwardTo, apiUrl, apiKey, types } = settings;
  // Made per run and never sent anywhere but to the developer's endpoint: nothing of the merchant's real secrets leaves the API.
  const secret = newSecret();
  out.stdout(`Your webhook signing secret for this run is ${secret}\n`);
  out.stdout(`Forwarding ${types ? types.join(', ') : 'every event'} from ${apiUrl} to ${forwardTo.href} (Ctrl-C stops)\n`);

  let connections = 0;
  try {
    const messages = followEvents({
      apiUrl,
      apiKey,
      ...(types ? { types } : {}),
      signal,
      onDisconnect: (reason, retryInMs) => out.stdout(`${clock()}  lost the API (${reason}); trying again in ${(retryInMs / 1000).toFixed(1)} s\n`),
    });
    for await (const message of messages) {
      if (message.event === 'ready') {
        out.stdout(`${clock()}  ${connections++ === 0 ? 'connected: waiting for events' : 'connected again: resuming after the last event received'}\n`);
        continue;
      }
      const body = JSON.parse(message.data);
      const outcome = await forwardEvent({ url: forwardTo, eventId: body.id, event: body.event, rawBody: message.data, secret });
      out.stdout(`${clock()}  ${body.event.padEnd(15)}  ${body.id}  cart ${body.data.cartId}  ${answerOf(outcome)}\n`);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof StreamRefused)) throw err;
    out.stderr(`${err.message}\n`);
    return 1;
  }
}
