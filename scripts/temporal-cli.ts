import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** The newest CLI release whose go.mod has no `replace`, so `go install` can build it: it embeds the Temporal server and the Web UI. */
export const TEMPORAL_CLI_VERSION = '1.5.1';
const MODULE = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;

function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(base, 'hosted-checkout', `temporal-${TEMPORAL_CLI_VERSION}`);
}

function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

const HOW_TO_INSTALL = `The Temporal CLI is needed to run the Temporal dev server, and it could not be found or built.
Do one of:
  - install Go >= 1.25 (https://go.dev/doc/install) and run this again: the CLI is built once with
      go install ${MODULE}
  - install the Temporal CLI yourself and put \`temporal\` on PATH, or point TEMPORAL_CLI at it
  - run against an existing Temporal server by setting TEMPORAL_ADDRESS`;

/**
 * Finds the `temporal` binary: TEMPORAL_CLI, then PATH, then our per-user cache; otherwise builds it
 * into the cache with `go install` (minutes, once). Nothing is downloaded but Go modules.
 */
export async function ensureTemporalCli(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const explicit = process.env.TEMPORAL_CLI;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`TEMPORAL_CLI=${explicit} does not exist.`);
    return explicit;
  }
  const fromPath = onPath('temporal');
  if (fromPath) return fromPath;

  const dir = cacheDir();
  const cached = path.join(dir, 'temporal');
  if (existsSync(cached)) return cached;

  const go = onPath('go');
  if (!go) throw new Error(HOW_TO_INSTALL);

  const staging = `${dir}.building-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  log(`Building the Temporal CLI v${TEMPORAL_CLI_VERSION} with Go into ${dir} (once; this takes a few minutes)…`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(go, ['install', '-x', MODULE], { env: { ...process.env, GOBIN: staging }, stdio: ['ignore', 'ignore', 'pipe'] });
    let lastReport = 0;
    let tail = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-4000);
      const downloading = chunk.match(/go: downloading (\S+)/);
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        log(`  …still building (${Math.round((Date.now() - started) / 1000)} s${downloading ? `, fetching ${downloading[1]}` : ''})`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`go install failed (exit ${code}):\n${tail}\n\n${HOW_TO_INSTALL}`))));
  });
  // Publish atomically so a concurrent or interrupted build never leaves a half-written binary in the cache.
  mkdirSync(dir, { recursive: true });
  renameSync(path.join(staging, 'temporal'), cached);
  rmSync(staging, { recursive: true, force: true });
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s: ${cached}`);
  return cached;
}
