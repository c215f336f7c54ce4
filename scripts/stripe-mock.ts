import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { freePort } from './free-port.js';
import { ensureGoTool, type GoTool } from './go-tool.js';

export const STRIPE_MOCK_VERSION = '0.203.0';

/** The fixtures stripe-mock answers with, copied beside the binary so tests can serve variations of them. */
export const STRIPE_MOCK_FIXTURES = 'fixtures3.json';

export const STRIPE_MOCK: GoTool = {
  binary: 'stripe-mock',
  title: "Stripe's API mock, stripe-mock (needed by the tests of the Stripe payment processor)",
  module: 'github.com/stripe/stripe-mock',
  version: STRIPE_MOCK_VERSION,
  envVar: 'STRIPE_MOCK',
  alternatives: ['install stripe-mock yourself (https://github.com/stripe/stripe-mock) and put it on PATH, or point STRIPE_MOCK at it'],
  afterBuild(staging) {
    const modules = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
    const source = path.join(modules, 'github.com', 'stripe', `stripe-mock@v${STRIPE_MOCK_VERSION}`, 'embedded', 'openapi', STRIPE_MOCK_FIXTURES);
    copyFileSync(source, path.join(staging, STRIPE_MOCK_FIXTURES));
  },
};

/** Finds stripe-mock (STRIPE_MOCK, PATH, the cache) or builds it once with `go install` (about 30 s). */
export const ensureStripeMock = (log?: (line: string) => void): Promise<string> => ensureGoTool(STRIPE_MOCK, log);

/** The fixtures of a stripe-mock we built, when it is one (a binary from elsewhere has its own, embedded). */
export function stripeMockFixtures(binary: string): string | undefined {
  const file = path.join(path.dirname(binary), STRIPE_MOCK_FIXTURES);
  return existsSync(file) ? file : undefined;
}

/** Runs stripe-mock over plain HTTP on 127.0.0.1:port and waits until it accepts connections. */
export async function startStripeMock(options: { binary: string; port: number; fixtures?: string }): Promise<{ url: string; stop: () => Promise<void> }> {
  // It serves HTTPS too, on a fixed port unless told otherwise: a free one keeps two runs from colliding.
  const args = [
    '-http-addr',
    `127.0.0.1:${options.port}`,
    '-https-addr',
    `127.0.0.1:${await freePort()}`,
    ...(options.fixtures ? ['-fixtures', options.fixtures] : []),
  ];
  const child = spawn(options.binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(options.port, '127.0.0.1');
      socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
      socket.once('connect', () => socket.destroy());
    });
  const deadline = Date.now() + 30_000;
  while (!(await accepts())) {
    if (child.exitCode !== null) throw new Error(`stripe-mock exited with code ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`stripe-mock did not listen on port ${options.port} within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${options.port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
