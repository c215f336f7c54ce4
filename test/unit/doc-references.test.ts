import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What .gitignore keeps out (made at run time, never committed): citing it is an instruction, not a reference. */
const GENERATED = readFileSync(path.join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim().replace(/\/$/, ''))
  .filter((line) => line && !line.startsWith('#') && !line.includes('*'));
const isGenerated = (file: string) => GENERATED.some((ignored) => file === ignored || file.startsWith(`${ignored}/`));
const TOP_LEVEL = readdirSync(ROOT).filter((name) => name !== '.git' && !isGenerated(name));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(file);
    return entry.name.endsWith('.md') ? [file] : [];
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const topLevel = TOP_LEVEL.map(escapeRegExp).join('|');
/** A repo path: a top-level folder then more, or a top-level file; no placeholders (`<id>`, `*`, `{x}`, `…`). */
const REPO_PATH = new RegExp(`^(?:${topLevel})(?:/[\\w.@-]+)*/?$`);
/** The same in prose, where only a path with an extension is taken for one (`docs/runbook.md`, not "api/"). */
const PROSE_PATH = new RegExp(`(?<![\\w/.~-])((?:${topLevel})/[\\w./@-]*\\.[a-z]+)(?![\\w/*<{])`, 'g');

/** A media type in a code span (`application/json`) names no file, though `application/` is a top-level folder. */
const MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?(?:json|xml|x-www-form-urlencoded|octet-stream|x-ndjson)$/;

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsIn(markdown: string): Set<string> {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
}

export interface Citation {
  /** As written in the document. */
  cited: string;
  /** The repo file or folder it names, from the root; undefined when it names none. */
  resolved: string | undefined;
  /** For a link with a #fragment into a markdown file, whether that heading exists. */
  anchorMissing?: boolean;
}

/** The repo paths a markdown document cites: its relative links, its code spans and its prose (not its code blocks). */
export function citationsOf(markdown: string, file: string): Citation[] {
  const dir = path.dirname(file);
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  const exists = (candidate: string) => existsSync(path.join(ROOT, candidate));
  const citations: Citation[] = [];

  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    if (target!.startsWith('#')) {
      const own = path.relative(ROOT, file);
      citations.push({ cited: target!, resolved: own, ...(anchorsIn(markdown).has(target!.slice(1)) ? {} : { anchorMissing: true }) });
      continue;
    }
    const [where, fragment] = target!.split('#') as [string, string | undefined];
    const resolved = path.relative(ROOT, path.resolve(dir, where));
    const found = exists(resolved) ? resolved : undefined;
    const anchorMissing =
      found !== undefined && fragment !== undefined && found.endsWith('.md') && statSync(path.join(ROOT, found)).isFile()
        ? !anchorsIn(readFileSync(path.join(ROOT, found), 'utf8')).has(fragment)
        : undefined;
    citations.push({ cited: target!, resolved: found, ...(anchorMissing ? { anchorMissing } : {}) });
  }

  const fromRootOrHere = (candidate: string) => {
    const clean = candidate.replace(/\/$/, '');
    if (exists(clean) || isGenerated(clean)) return clean;
    const here = path.relative(ROOT, path.resolve(dir, clean));
    return exists(here) ? here : undefined;
  };
  const outsideLinks = text.replace(/\]\([^)]*\)/g, ']');
  for (const [, code] of outsideLinks.matchAll(/`([^`\n]+)`/g)) {
    // A bare top-level folder name is more often a role (`api`, `worker`) than a citation.
    const isPath = REPO_PATH.test(code!) && !MEDIA_TYPE.test(code!) && (code!.includes('/') || /\.\w+$/.test(code!) || code === 'Dockerfile');
    if (isPath) citations.push({ cited: code!, resolved: fromRootOrHere(code!) });
  }
  const prose = outsideLinks.replace(/`[^`\n]+`/g, '');
  for (const [, candidate] of prose.matchAll(PROSE_PATH)) citations.push({ cited: candidate!, resolved: fromRootOrHere(candidate!) });
  return citations;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '.git' || isGenerated(path.relative(ROOT, file)) ? [] : sourceFiles(file);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** The repo paths cited in a source file's comments (`// …`, `/* … *\/` and JSDoc lines). */
export function commentCitationsOf(source: string): string[] {
  const comments = [...source.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => m[0]).join('\n');
  return [...comments.matchAll(PROSE_PATH)].map((m) => m[1]!).filter((cited) => !isGenerated(cited.replace(/\/$/, '')));
}

const documents = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

describe('the documentation cites only what the repo holds', () => {
  it('finds the citations it checks, and names one that is missing', () => {
    const sample = [
      'See `core/config.ts`, [the runbook](runbook.md#metrics-and-what-to-alert-on), docs/going-live.md,',
      '`worker/nowhere.ts`, [gone](gone.md), [a heading](runbook.md#no-such-heading), `application/json` and `https://example.com`.',
      '```ts',
      "import { verifyWebhook } from './core/webhooks/nowhere.js';",
      '```',
    ].join('\n');
    const citations = citationsOf(sample, path.join(ROOT, 'docs', 'sample.md'));
    expect(citations.map((c) => c.cited).sort()).toEqual(
      ['core/config.ts', 'docs/going-live.md', 'gone.md', 'runbook.md#metrics-and-what-to-alert-on', 'runbook.md#no-such-heading', 'worker/nowhere.ts'].sort(),
    );
    expect(citations.filter((c) => c.resolved === undefined).map((c) => c.cited)).toEqual(['gone.md', 'worker/nowhere.ts']);
    expect(citations.filter((c) => c.anchorMissing).map((c) => c.cited)).toEqual(['runbook.md#no-such-heading']);
  });

  it.each(documents.map((file) => [path.relative(ROOT, file), file]))('%s', (_name, file) => {
    const citations = citationsOf(readFileSync(file, 'utf8'), file);
    const missing = citations.filter((c) => c.resolved === undefined).map((c) => c.cited);
    const brokenAnchors = citations.filter((c) => c.anchorMissing).map((c) => c.cited);
    expect(missing, 'cites files that do not exist: fix the path, or cite what the repo holds').toEqual([]);
    expect(brokenAnchors, 'links to headings that do not exist').toEqual([]);
  });
});

describe('code comments cite only what the repo holds', () => {
  it('finds the paths a comment cites, not the ones code imports', () => {
    const sample = ["import { x } from '../core/config.js';", '// served by worker/nowhere.ts, see docs/runbook.md', '/** Owner: core/config.ts */'].join('\n');
    expect(commentCitationsOf(sample)).toEqual(['worker/nowhere.ts', 'docs/runbook.md', 'core/config.ts']);
  });

  it('cites no file that does not exist', () => {
    // This file's own samples cite missing files on purpose.
    const others = sourceFiles(ROOT).filter((file) => file !== import.meta.filename);
    const missing = others.flatMap((file) =>
      commentCitationsOf(readFileSync(file, 'utf8'))
        .filter((cited) => !existsSync(path.join(ROOT, cited)))
        .map((cited) => `${path.relative(ROOT, file)}: ${cited}`),
    );
    expect(missing, 'comments cite files that do not exist: fix the path, or cite what the repo holds').toEqual([]);
  });
});
