import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../../scripts/examples-toolchains.js';

/** Issue 50: each merchant example is a server of under 150 lines, short enough to read whole. */
const SERVERS = { go: 'go/main.go', python: 'python/server.py', node: 'node/server.js' };

describe('the merchant examples (examples/)', () => {
  for (const [language, file] of Object.entries(SERVERS))
    it(`${language}: ${file} is under 150 lines`, () => {
      const lines = readFileSync(path.join(EXAMPLES_DIR, file), 'utf8').trimEnd().split('\n').length;
      expect(lines).toBeLessThan(150);
    });
});
