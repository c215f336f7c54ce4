import path from 'node:path';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The product's import graph, as madge reads it (every import, type-only ones included, as
 * `npx madge --circular --extensions ts api web core workflows activities worker` does): no cycle between
 * files, the two doors (api/ and web/) apart, and the folders of core/ in layers (issue 49). ESLint
 * (eslint.config.js) refuses a door importing the other as it is written; this test holds the whole graph.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const PRODUCT = ['api', 'web', 'core', 'workflows', 'activities', 'worker'];

type Graph = Record<string, string[]>;
let graph: Graph;
let circular: string[][];
let skipped: string[];

beforeAll(async () => {
  const result = await madge(PRODUCT, { baseDir: ROOT, fileExtensions: ['ts'], tsConfig: path.join(ROOT, 'tsconfig.json') });
  graph = result.obj();
  circular = result.circular();
  skipped = result.warnings().skipped;
}, 60_000);

/** core/<folder>/… → <folder>; a file directly under core/ belongs to no folder. */
const coreFolder = (file: string) => /^core\/([^/]+)\//.exec(file)?.[1];

/** Which folders of core/ import which, from the file graph. */
export function coreFolderGraph(files: Graph): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of Object.entries(files)) {
    const from = coreFolder(file);
    if (from === undefined) continue;
    for (const imported of imports) {
      const to = coreFolder(imported);
      if (to === undefined || to === from) continue;
      if (!folders.has(from)) folders.set(from, new Set());
      folders.get(from)!.add(to);
    }
  }
  return folders;
}

/** The folder cycles of a graph: each strongly connected set of two folders or more (Tarjan), sorted. */
export function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a.join().localeCompare(b.join()));
}

/** The imports of one top-level folder into another, as `file -> file`. */
const importsBetween = (from: string, to: string) =>
  Object.entries(graph).flatMap(([file, imports]) =>
    file.startsWith(`${from}/`) ? imports.filter((imported) => imported.startsWith(`${to}/`)).map((imported) => `${file} -> ${imported}`) : [],
  );

describe('the architecture: the import graph of api web core workflows activities worker', () => {
  it('reads every file: madge skips none, and finds the graph', () => {
    expect(skipped).toEqual([]);
    expect(Object.keys(graph).filter((file) => file.startsWith('core/')).length).toBeGreaterThan(100);
    expect(Object.keys(graph).some((file) => file.startsWith('application/'))).toBe(true);
  });

  it('has no circular dependency between files', () => {
    expect(circular.map((cycle) => cycle.join(' > '))).toEqual([]);
  });

  it('keeps the two doors apart: no file of web/ imports api/, none of api/ imports web/', () => {
    expect(importsBetween('web', 'api')).toEqual([]);
    expect(importsBetween('api', 'web')).toEqual([]);
  });

  it('finds folder cycles where there are some', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cyclesOf(edges)).toEqual([['a', 'b', 'c']]);
    expect(coreFolderGraph({ 'core/a/x.ts': ['core/b/y.ts', 'core/a/z.ts', 'core/money.ts'], 'api/app.ts': ['core/a/x.ts'] })).toEqual(
      new Map([['a', new Set(['b'])]]),
    );
  });

  it('has no folder cycle among the folders of core/', () => {
    expect(cyclesOf(coreFolderGraph(graph))).toEqual([]);
  });
});
