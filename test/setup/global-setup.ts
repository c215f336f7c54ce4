import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../scripts/free-port.js';
import { startInfrastructure, temporalTopologyFromEnv } from '../../scripts/infrastructure.js';
import { ensureStripeMock, startStripeMock, stripeMockFixtures } from '../../scripts/stripe-mock.js';
import { bundleWorkflows } from '../../worker/create-worker.js';
import { writeApprovingFixtures } from '../support/stripe-mock.js';
import { TEST_TEMPORAL_DYNAMIC_CONFIG } from '../support/test-temporal-settings.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    dataEncryptionKey: string;
    workflowBundle: { code: string; sourceMap: string };
    /** Base URL of the run's stripe-mock, whose PaymentIntents succeed (test/support/stripe-mock.ts). */
    stripeApiBase: string;
  }
}

/**
 * One real PostgreSQL, one real Temporal server (the CLI's dev server; with TEMPORAL_TOPOLOGY=server,
 * production's temporal-server on that PostgreSQL) and one stripe-mock for the whole run, on free
 * ports and in a throwaway folder, so the suite runs beside `npm start`. The workflow bundle is built
 * once too. stripe-mock is built with Go the first time (about 30 s), like the Temporal CLI.
 */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-test-'));
  // PostgreSQL runs as the `postgres` user when we are root: it must be able to reach its folder.
  chmodSync(dataDir, 0o755);
  // stripe-mock first: a missing Go or binary fails the run before any server is left behind.
  const stripeMockBinary = await ensureStripeMock();
  const fixtures = stripeMockFixtures(stripeMockBinary);
  if (!fixtures)
    throw new Error(`stripe-mock at ${stripeMockBinary} has no fixtures file beside it: unset STRIPE_MOCK (or take it off PATH) so the tests build their own.`);
  writeApprovingFixtures(fixtures, path.join(dataDir, 'stripe-fixtures.json'));
  const stripeMock = await startStripeMock({ binary: stripeMockBinary, port: await freePort(), fixtures: path.join(dataDir, 'stripe-fixtures.json') });
  let infrastructure: Awaited<ReturnType<typeof startInfrastructure>> | undefined;
  let bundle: Awaited<ReturnType<typeof bundleWorkflows>>;
  try {
    const [postgresPort, temporalPort] = [await freePort(), await freePort()];
    infrastructure = await startInfrastructure({
      dataDir,
      postgresPort,
      temporalPort,
      persistentTemporal: false,
      temporalTopology: temporalTopologyFromEnv(),
      temporalDynamicConfig: TEST_TEMPORAL_DYNAMIC_CONFIG,
      log: () => {},
    });
    bundle = await bundleWorkflows();
  } catch (err) {
    // Vitest runs no teardown for a setup that threw: stop what did start, or it outlives the run.
    await Promise.all([infrastructure?.stop(), stripeMock.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const running = infrastructure;
  project.provide('databaseUrl', running.databaseUrl);
  project.provide('temporalAddress', running.temporalAddress);
  project.provide('dataEncryptionKey', randomBytes(32).toString('base64'));
  project.provide('workflowBundle', { code: bundle.code, sourceMap: bundle.sourceMap });
  project.provide('stripeApiBase', stripeMock.url);

  return async () => {
    await Promise.all([running.stop(), stripeMock.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  };
}
