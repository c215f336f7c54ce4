/**
 * What a paid session driven through the hosted page costs in CPU, every process summed, for this code
 * and for another checkout of the project (`--before <dir>`, e.g. a worktree of the commit before a
 * change), on the same servers in one run: the two in turn in each round, now over before read in
 * its median round (./rounds.ts).
 * The session is what a customer without JavaScript does: open the page, post the contact, reload,
 * post the code, reload, Pay, and follow the redirect's answer to the merchant.
 *
 *   npx tsx scripts/bench/page-session-cost.ts --before ../other-checkout [--sessions 40] [--concurrency 4] [--rounds 3]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config.js';
import { createDb } from '../../core/db/client.js';
import { connectTemporal } from '../../core/temporal/connection.js';
import { withCookies } from '../cookie-header.js';
import { createCart, forEachConcurrently, settle } from './context.js';
import { withCpu } from './cpu.js';
import { round } from './load.js';
import { costRatio, measureInRounds } from './rounds.js';
import { registerReceivingMerchant, startVerifyingReceiver } from './receiver.js';
import { processGroups, startBenchStack, startRoles, type Roles } from './stack.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    sessions: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
  },
});
if (!values.before) throw new Error('--before <dir>: the checkout to compare with');
const sessions = Number(values.sessions);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const log = (line: string) => console.error(line);

/** One paid session as a browser without JavaScript drives it; throws unless it ends at the merchant. */
async function pagePaidSession(roles: Roles, platformUuid: string, otp: string): Promise<void> {
  const { cartId } = await createCart(roles.apiUrl, platformUuid);
  let cookie = '';
  const load = async () => {
    const res = await fetch(`${roles.webUrl}/?token=${cartId}`, { headers: { cookie } });
    cookie = withCookies(cookie, res.headers.getSetCookie());
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the page answered ${res.status}`);
    return html;
  };
  const csrf = (await load()).match(/name="csrf" value="([^"]+)"/)![1]!;
  const post = async (to: string, fields: Record<string, string>) => {
    const res = await fetch(`${roles.webUrl}${to}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: roles.webUrl, cookie },
      body: new URLSearchParams({ token: cartId, csrf, ...fields }),
    });
    cookie = withCookies(cookie, res.headers.getSetCookie());
    if (res.status !== 303) throw new Error(`${to} answered ${res.status}`);
    return res.headers.get('location') ?? '';
  };
  await post('/contact', { contact: 'bench@example.com' });
  await load();
  await post('/code', { code: otp });
  await load();
  const landing = await post('/card', { number: '4111111111111111', expiry: '12/30', cvv: '123' });
  if (!landing.includes(`cartId=${cartId}`)) throw new Error(`Pay went to ${landing}, not the merchant`);
}

const stack = await startBenchStack(log);
const receiver = await startVerifyingReceiver();
try {
  const codes = { before: path.resolve(values.before), now: path.resolve('.') };
  const started = {
    before: await startRoles(stack, { taskQueue: 'bench-page-before', root: codes.before }),
    now: await startRoles(stack, { taskQueue: 'bench-page-now' }),
  };
  const config = loadConfig({ ...stack.baseEnv, ...started.now.env });
  const db = createDb(config.databaseUrl);
  const temporal = connectTemporal(config);
  const merchant = await registerReceivingMerchant(receiver, { db, config }, 'Bench Page Store');
  const measuredRounds = await measureInRounds(['before', 'now'] as const, rounds, async (code, pass) => {
    const roles = started[code];
    const session = () => pagePaidSession(roles, merchant.platformUuid, config.sandboxOtp);
    await forEachConcurrently(Array.from({ length: concurrency }), concurrency, session);
    await settle({ temporal, config, merchant }, roles.env.TEMPORAL_TASK_QUEUE);
    const measured = await withCpu(processGroups(stack, roles), async () => {
      await forEachConcurrently(Array.from({ length: sessions }), concurrency, session);
      return { requests: sessions };
    });
    // The bench's own process is the customer's browser here: left out, as in scripts/bench/session-cost.ts.
    const { bench: _client, ...byProcess } = measured.cpuMsPerRequest;
    const total = round(
      Object.values(byProcess).reduce((a, b) => a + b, 0),
      1,
    );
    log(`  ${code}, round ${pass}: ${total} ms per paid session ${JSON.stringify(byProcess)}`);
    return { cpuMsPerSession: total, byProcess };
  });
  const nowOverBefore = costRatio(
    measuredRounds,
    (r) => r.now.cpuMsPerSession,
    (r) => r.before.cpuMsPerSession,
  );
  console.log(JSON.stringify({ sessions, concurrency, nowOverBefore, rounds: measuredRounds }, null, 2));
  await Promise.all([started.before.stop(), started.now.stop()]);
  await temporal.close();
  await db.end();
} finally {
  await receiver.close();
  await stack.stop();
}
