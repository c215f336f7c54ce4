import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** A command-line tool we build from its Go module when this machine lacks it. */
export interface GoTool {
  /** The binary's name, on PATH and in the cache. */
  binary: string;
  /** What the tool is, for messages: "The Temporal CLI". */
  title: string;
  /** `go install` target without the version, e.g. `github.com/temporalio/cli/cmd/temporal`. */
  module: string;
  version: string;
  /** The variable that may name the binary's path instead. */
  envVar: string;
  /** Why it is needed and the other ways to get it, for the message when it can neither be found nor built. */
  alternatives: string[];
  /** Done once after a build, before the binary is published into the cache folder (e.g. copying files it needs). */
  afterBuild?: (staging: string) => void;
}

export const goInstallTarget = (tool: GoTool) => `${tool.module}@v${tool.version}`;

/** Where a tool's build is cached: per user, per version, outside any checkout. */
export function goToolCacheDir(tool: GoTool): string {
  const base = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(base, 'hosted-checkout', `${tool.binary}-${tool.version}`);
}

function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

const howToInstall = (tool: GoTool) => `${tool.title} could not be found or built.
Do one of:
  - install Go >= 1.25 (https://go.dev/doc/install) and run this again: it is built once with
      go install ${goInstallTarget(tool)}
${tool.alternatives.map((a) => `  - ${a}`).join('\n')}`;

/** The tool in our cache, without building it: undefined when it has not been built yet. */
export function cachedGoTool(tool: GoTool): string | undefined {
  const cached = path.join(goToolCacheDir(tool), tool.binary);
  return existsSync(cached) ? cached : undefined;
}

/**
 * Finds a tool's binary: its variable, then PATH, then our per-user cache; otherwise builds it into
 * the cache with `go install`. Nothing is downloaded but Go modules.
 */
export async function ensureGoTool(tool: GoTool, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const explicit = process.env[tool.envVar];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${tool.envVar}=${explicit} does not exist.`);
    return explicit;
  }
  const fromPath = onPath(tool.binary);
  if (fromPath) return fromPath;
  const cached = cachedGoTool(tool);
  if (cached) return cached;

  const go = onPath('go');
  if (!go) throw new Error(howToInstall(tool));

  const dir = goToolCacheDir(tool);
  const staging = `${dir}.building-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  log(`Building ${tool.title} v${tool.version} with Go into ${dir} (once)…`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(go, ['install', '-x', goInstallTarget(tool)], { env: { ...process.env, GOBIN: staging }, stdio: ['ignore', 'ignore', 'pipe'] });
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
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`go install failed (exit ${code}):\n${tail}\n\n${howToInstall(tool)}`))));
  });
  tool.afterBuild?.(staging);
  // Publish atomically so a concurrent or interrupted build never leaves a half-written folder in the cache.
  mkdirSync(path.dirname(dir), { recursive: true });
  try {
    renameSync(staging, dir);
  } catch (err) {
    // Another process published the same version first: theirs is as good as ours.
    if (!existsSync(path.join(dir, tool.binary))) throw err;
    rmSync(staging, { recursive: true, force: true });
  }
  log(`${tool.title} built in ${Math.round((Date.now() - started) / 1000)} s: ${path.join(dir, tool.binary)}`);
  return path.join(dir, tool.binary);
}
