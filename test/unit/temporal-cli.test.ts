import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureTemporalCli, TEMPORAL_CLI_VERSION } from '../../scripts/temporal-cli.js';

function fakeBinary(dir: string): string {
  const file = path.join(dir, 'temporal');
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  return file;
}

describe('ensureTemporalCli: where the Temporal binary comes from', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('takes TEMPORAL_CLI first, and refuses one that does not exist', async () => {
    const explicit = fakeBinary(mkdtempSync(path.join(tmpdir(), 'cli-')));
    vi.stubEnv('TEMPORAL_CLI', explicit);
    expect(await ensureTemporalCli(() => {})).toBe(explicit);
    vi.stubEnv('TEMPORAL_CLI', '/nonexistent/temporal');
    await expect(ensureTemporalCli(() => {})).rejects.toThrow('TEMPORAL_CLI=/nonexistent/temporal does not exist');
  });

  it('then `temporal` on PATH', async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'path-'));
    const onPath = fakeBinary(bin);
    vi.stubEnv('TEMPORAL_CLI', '');
    vi.stubEnv('PATH', `${bin}:/usr/bin:/bin`);
    expect(await ensureTemporalCli(() => {})).toBe(onPath);
  });

  it('then the per-user cache', async () => {
    const cache = mkdtempSync(path.join(tmpdir(), 'cache-'));
    const dir = path.join(cache, 'hosted-checkout', `temporal-${TEMPORAL_CLI_VERSION}`);
    mkdirSync(dir, { recursive: true });
    const cached = fakeBinary(dir);
    vi.stubEnv('TEMPORAL_CLI', '');
    vi.stubEnv('PATH', '/usr/bin:/bin');
    vi.stubEnv('XDG_CACHE_HOME', cache);
    expect(await ensureTemporalCli(() => {})).toBe(cached);
  });

  it('without a binary or Go, says how to install the Temporal CLI', async () => {
    vi.stubEnv('TEMPORAL_CLI', '');
    vi.stubEnv('PATH', mkdtempSync(path.join(tmpdir(), 'empty-path-')));
    vi.stubEnv('XDG_CACHE_HOME', mkdtempSync(path.join(tmpdir(), 'empty-cache-')));
    await expect(ensureTemporalCli(() => {})).rejects.toThrow(/install Go >= 1\.25[\s\S]*go install github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1/);
  });
});
