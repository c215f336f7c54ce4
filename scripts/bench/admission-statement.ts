import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { admitCart } from '../../core/checkout/cart-admission.js';
import { createCartRequestSchema } from '../../core/checkout/cart-schema.js';
import { insertCart } from '../../core/checkout/cart-ledger.js';
import { createKeyring } from '../../core/crypto.js';
import { createDb, type Db } from '../../core/db/client.js';
import { migrate } from '../../core/db/migrate.js';
import { registerMerchantWithoutUrlCheck } from '../../core/onboarding/registration.js';
import { startEmbeddedPostgres } from '../embedded-postgres.js';
import { freePort } from '../free-port.js';
import { cartRequestBody } from './context.js';
import { cpuMeter } from './cpu.js';
import { closedLoop, median, round } from './load.js';
import { costRatio, measureInRounds, rateRatio } from './rounds.js';

/**
 * `npm run -s bench:admission`: what a create-cart's admission costs PostgreSQL with the cart's row
 * written inside the admission statement (admit_cart_request as migration 044 left it, loaded here
 * under another name) against the admission alone and then the ledger's insert (migration 062 and
 * insertCart, what create-cart does now). Both sides count the same three rate-limit rows a public
 * create-cart from one address counts, through the API's pool of 10 connections, 32 callers at once,
 * in rounds that alternate the order, on a PostgreSQL of their own. PostgreSQL's CPU (the server and
 * its backends, from /proc) and this process's, per cart, and the rate: medians of the rounds, and the
 * ratios read in their median round.
 */
const { values } = parseArgs({ options: { carts: { type: 'string', default: '4000' }, rounds: { type: 'string', default: '5' } } });
const options = z.object({ carts: z.coerce.number().int().positive(), rounds: z.coerce.number().int().positive() }).parse(values);
const CALLERS = 32;
const MIGRATION_044 = fileURLToPath(new URL('../../core/db/migrations/044_named_scoped_api_keys.sql', import.meta.url));

const dataDir = mkdtempSync(path.join(tmpdir(), 'admission-bench-'));
// As root, PostgreSQL runs as its own user (scripts/embedded-postgres.ts), who must reach its folder.
chmodSync(dataDir, 0o755);
const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort(), password: randomBytes(12).toString('hex') });
const db = createDb(pg.url);
try {
  await migrate(db);
  // The function as 044 defined it, the last of the migrations that made it insert the row.
  const definition = readFileSync(MIGRATION_044, 'utf8');
  await db.unsafe(
    definition
      .slice(definition.indexOf('create or replace function admit_cart_request('))
      .replace('function admit_cart_request(', 'function admit_cart_request_with_row('),
  );
  const merchant = await registerMerchantWithoutUrlCheck(db, createKeyring([{ id: 'k1', key: randomBytes(32) }]), {
    name: 'Bench Merchant',
    environment: 'sandbox',
    webhookUrl: 'https://bench.example/hooks',
  });
  const { store, cart } = createCartRequestSchema.parse(JSON.parse(cartRequestBody(merchant.platformUuid))).cartObject;
  const limit = (bucket: string) => ({ bucket, max: 1_000_000_000, windowSeconds: 3600 });
  const admission = {
    clientLimits: [limit('client:127.0.0.1')],
    platformUuid: merchant.platformUuid,
    environment: 'sandbox' as const,
    presentedKeyHash: null,
    keyedLimits: [limit(`platform-key:${merchant.platformUuid}`)],
    publicLimits: [limit(`platform-client:${merchant.platformUuid}:127.0.0.1`), limit(`platform:${merchant.platformUuid}`)],
  };
  const newRow = () => ({ cartId: randomUUID(), amount: 5_000, createdAt: new Date(), expiresOn: new Date(Date.now() + 2_700_000).toISOString() });

  const sides = {
    /** One statement: admitted, then the row, before its commit. */
    rowInStatement: async (sql: Db) => {
      const row = newRow();
      const json = (list: ReturnType<typeof limit>[]) => sql.json(list);
      await sql`select admission from admit_cart_request_with_row(${json(admission.clientLimits)}, ${admission.platformUuid}, ${admission.environment},
        null, ${json(admission.keyedLimits)}, ${json(admission.publicLimits)},
        ${sql.json({ cart_id: row.cartId, currency: cart.currency, amount: row.amount, expires_on: row.expiresOn, created_at: row.createdAt.toISOString(), store, cart })})`;
    },
    /** Two statements: the admission commits, then the ledger inserts the row. */
    rowAfter: async (sql: Db) => {
      const answer = await admitCart(sql, admission);
      await insertCart(sql, {
        ...newRow(),
        platformUuid: merchant.platformUuid,
        environment: 'sandbox',
        merchantName: answer.merchant!,
        currency: cart.currency,
        store,
        cart,
        createdWith: 'public',
      });
    },
  } satisfies Record<string, (sql: Db) => Promise<void>>;
  type Side = keyof typeof sides;

  const run = async (side: Side, carts: number) => {
    let left = carts;
    const meter = cpuMeter({ postgres: { pid: pg.pid, withChildren: true } });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (left-- > 0) await sides[side](db);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = meter.stop();
    return {
      cartsPerSec: round(carts / seconds, 0),
      postgresMsPerCart: round((cpu.cpuSeconds.postgres! * 1000) / carts, 3),
      callerMsPerCart: round((cpu.cpuSeconds.bench! * 1000) / carts, 3),
    };
  };

  for (const side of Object.keys(sides) as Side[]) await closedLoop(CALLERS, 2, () => sides[side](db));
  const rounds = await measureInRounds<Side, Awaited<ReturnType<typeof run>>>(
    ['rowInStatement', 'rowAfter'],
    options.rounds,
    (side) => run(side, options.carts),
    ({ first, ...figures }, pass) => process.stdout.write(`round ${pass} (${first} first): ${JSON.stringify(figures)}\n`),
  );
  const medians = (side: Side) => ({
    cartsPerSec: median(rounds.map((r) => r[side].cartsPerSec)),
    postgresMsPerCart: median(rounds.map((r) => r[side].postgresMsPerCart)),
    callerMsPerCart: median(rounds.map((r) => r[side].callerMsPerCart)),
  });
  const [inStatement, after] = [medians('rowInStatement'), medians('rowAfter')];
  process.stdout.write(
    `${JSON.stringify(
      {
        callers: CALLERS,
        cartsPerRound: options.carts,
        rounds: options.rounds,
        rowInStatement: inStatement,
        rowAfter: after,
        // Each ratio read in its median round, where both sides ran back to back (./rounds.ts).
        postgresRatio: costRatio(
          rounds,
          (r) => r.rowAfter.postgresMsPerCart,
          (r) => r.rowInStatement.postgresMsPerCart,
        ).ratio,
        rateRatio: rateRatio(
          rounds,
          (r) => r.rowAfter.cartsPerSec,
          (r) => r.rowInStatement.cartsPerSec,
        ).ratio,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await db.end();
  await pg.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
