import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Issue 49: the checkout page stays a set of small rooms (one module per step, its views included), so
 * no single closure grows back into the whole page. A file past the limit is split, not allowed.
 */
const LIMITS = [{ folder: 'web/checkout', maxLines: 150 }];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** Lines as `wc -l` counts them: a file ending in a newline has no line after it. */
const lineCount = (file: string) => readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length;

describe('architecture: file size', () => {
  for (const { folder, maxLines } of LIMITS) {
    it(`keeps every file of ${folder}/ (recursively) at ${maxLines} lines or fewer`, () => {
      const files = sourceFiles(path.join(ROOT, folder));
      expect(files.length).toBeGreaterThan(0);
      const over = files.map((file) => ({ file: path.relative(ROOT, file), lines: lineCount(file) })).filter(({ lines }) => lines > maxLines);
      expect(over).toEqual([]);
    });
  }
});
