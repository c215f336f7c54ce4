import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One writer per table (issue 49, point 3): every table the migrations create is written (insert,
 * upsert, update, delete) by exactly one module of the product folders.
 *
 * The rule, as this test applies it:
 * - The tables are those `core/db/migrations/*.sql` create (`create [unlogged] table`), less those a
 *   later migration drops; nothing is listed by hand.
 * - A write is a statement of the module's own text: `insert into <t>` (porsager's
 *   `insert into t ${sql(row)}` and upserts, `… on conflict … do update`, included), `update <t> [alias]
 *   set`, `delete from <t>`, `merge into <t>`, `truncate <t>`, with <t> one of those tables. Comments
 *   are not code. Calling another module's function is not a write of the caller's.
 * - A module is a source file (`.ts`, `.js`, `.cjs`, `.mjs`) of api, web, core, workflows, activities or worker.
 * - A SQL function of the migrations (its latest definition) writes what its own body writes, and
 *   counts as the module whose TypeScript calls it by name; a function that TypeScript never calls
 *   counts as the modules of the functions that call it, and, called by none, as its own writer
 *   (`function <name>`). A function called from two modules makes both writers of its tables.
 * - A migration's own statements (a backfill `update` beside an `alter table`) run once, by the
 *   migration runner, at deploy: they are schema history, not a writer.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const PRODUCT = ['api', 'web', 'core', 'workflows', 'activities', 'worker'];
const MIGRATIONS = path.join(ROOT, 'core/db/migrations');

/** A module's code without its comments: `//` and `/* … *\/` in TypeScript, `--` in SQL. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/(^|[^:\w'"`])\/\/.*$/gm, '$1')
    .replace(/--(\s.*)?$/gm, '');
}

const IDENT = '"?([a-z_][a-z0-9_]*)"?';
const WRITE_PATTERNS = [
  new RegExp(`\\binsert\\s+into\\s+(?:public\\.)?${IDENT}`, 'gi'),
  new RegExp(`\\bupdate\\s+(?:only\\s+)?(?:public\\.)?${IDENT}(?:\\s+(?:as\\s+)?[a-z_][a-z0-9_]*)?\\s+set\\b`, 'gi'),
  new RegExp(`\\bdelete\\s+from\\s+(?:only\\s+)?(?:public\\.)?${IDENT}`, 'gi'),
  new RegExp(`\\bmerge\\s+into\\s+(?:public\\.)?${IDENT}`, 'gi'),
  new RegExp(`\\btruncate\\s+(?:table\\s+)?(?:public\\.)?${IDENT}`, 'gi'),
];

/** The tables of `tables` a piece of code writes. */
function writtenTables(code: string, tables: ReadonlySet<string>): Set<string> {
  const written = new Set<string>();
  for (const pattern of WRITE_PATTERNS)
    for (const match of code.matchAll(pattern)) {
      const table = match[1]!.toLowerCase();
      if (tables.has(table)) written.add(table);
    }
  return written;
}

interface SqlFunction {
  name: string;
  body: string;
  migration: string;
}

/** The tables the migrations leave, and the latest definition of each SQL function they leave. */
function readMigrations(files: { name: string; text: string }[]) {
  const tables = new Set<string>();
  const functions = new Map<string, SqlFunction>();
  for (const { name, text } of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    const code = withoutComments(text);
    // A function's body is between its dollar quotes; what is outside is the migration's own statements.
    const statements = code.replace(
      /\bcreate\s+(?:or\s+replace\s+)?function\s+(?:public\.)?([a-z_][a-z0-9_]*)\s*\([\s\S]*?\bas\s+(\$[a-z_]*\$)([\s\S]*?)\2/gi,
      (_whole, fn: string, _quote: string, body: string) => {
        functions.set(fn.toLowerCase(), { name: fn.toLowerCase(), body, migration: name });
        return ' ';
      },
    );
    for (const match of statements.matchAll(/\bcreate\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?(?:public\.)?([a-z_][a-z0-9_]*)/gi))
      tables.add(match[1]!.toLowerCase());
    for (const match of statements.matchAll(/\bdrop\s+table\s+(?:if\s+exists\s+)?(?:public\.)?([a-z_][a-z0-9_]*)/gi)) tables.delete(match[1]!.toLowerCase());
    for (const match of statements.matchAll(/\balter\s+table\s+(?:if\s+exists\s+)?(?:public\.)?([a-z_][a-z0-9_]*)\s+rename\s+to\s+([a-z_][a-z0-9_]*)/gi)) {
      if (tables.delete(match[1]!.toLowerCase())) tables.add(match[2]!.toLowerCase());
    }
    for (const match of statements.matchAll(/\bdrop\s+function\s+(?:if\s+exists\s+)?(?:public\.)?([a-z_][a-z0-9_]*)/gi))
      functions.delete(match[1]!.toLowerCase());
  }
  return { tables, functions };
}

const calls = (code: string, fn: string) => new RegExp(`\\b${fn}\\s*\\(`, 'i').test(code);

/** Each table's writers, by the rule above: `modules` maps a module's path to its code, comments removed. */
function tableWriters(modules: Map<string, string>, migrations: ReturnType<typeof readMigrations>): Map<string, Set<string>> {
  const { tables, functions } = migrations;
  const writers = new Map<string, Set<string>>([...tables].map((table) => [table, new Set<string>()]));
  const record = (writer: string, written: Iterable<string>) => {
    for (const table of written) writers.get(table)!.add(writer);
  };
  for (const [module, code] of modules) record(module, writtenTables(code, tables));

  /** Whose a function is: its TypeScript callers, else its calling functions' owners, else itself. */
  const owners = (fn: SqlFunction, seen: Set<string> = new Set()): string[] => {
    const direct = [...modules].filter(([, code]) => calls(code, fn.name)).map(([module]) => module);
    if (direct.length > 0) return direct;
    seen.add(fn.name);
    const callers = [...functions.values()].filter((other) => !seen.has(other.name) && calls(other.body, fn.name));
    const inherited = [...new Set(callers.flatMap((caller) => owners(caller, seen)))];
    return inherited.length > 0 ? inherited : [`function ${fn.name} (${fn.migration})`];
  };
  for (const fn of functions.values()) {
    const written = writtenTables(fn.body, tables);
    if (written.size === 0) continue;
    for (const owner of owners(fn)) record(`${owner} via ${fn.name}()`, written);
  }
  return writers;
}

/** A writer's module, whatever way it writes: `a.ts via f()` is `a.ts`'s write. */
const moduleOf = (writer: string) => writer.replace(/ via [a-z0-9_]+\(\)$/, '');

function productModules(): Map<string, string> {
  const modules = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const file = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(file);
      else if (/\.(ts|js|cjs|mjs)$/.test(entry.name)) modules.set(file, withoutComments(readFileSync(path.join(ROOT, file), 'utf8')));
    }
  };
  for (const dir of PRODUCT) walk(dir);
  return modules;
}

function migrationFiles() {
  return readdirSync(MIGRATIONS)
    .filter((name) => name.endsWith('.sql'))
    .map((name) => ({ name, text: readFileSync(path.join(MIGRATIONS, name), 'utf8') }));
}

describe('table writers', () => {
  it('finds the writes of TypeScript and of SQL functions, in the forms the code uses', () => {
    const tables = new Set(['carts', 'webhook_events', 'rate_limit_windows']);
    expect([
      ...writtenTables(
        withoutComments(`await sql\`insert into carts \${sql(row)}\`; await tx\`update webhook_events e
          set payload = 1\`; // update rate_limit_windows set x = 1
        /* delete from rate_limit_windows */ await db\`update stock set n = 1\`; await db\`select * from carts\``),
        tables,
      ),
    ]).toEqual(['carts', 'webhook_events']);
    expect(writtenTables(withoutComments('-- insert into carts\nselect 1'), tables).size).toBe(0);
    expect([...writtenTables('insert into rate_limit_windows (k) values (1) on conflict (k) do update set n = n + 1', tables)]).toEqual(['rate_limit_windows']);

    const migrations = readMigrations([
      { name: '001.sql', text: 'create table carts (id int); create unlogged table rate_limit_windows (k text); create table gone (x int);' },
      {
        name: '002.sql',
        text: `drop table gone;
          create function count_hits(l jsonb) returns int language plpgsql as $$ begin insert into rate_limit_windows values (1); end $$;
          create function admit(x jsonb) returns int language plpgsql as $fn$ begin perform count_hits(x); insert into carts values (1); end $fn$;
          create function orphan() returns void language sql as $$ delete from carts $$;
          update carts set id = 2;`,
      },
    ]);
    expect([...migrations.tables].sort()).toEqual(['carts', 'rate_limit_windows']);
    const writers = tableWriters(
      new Map([
        ['core/rate-limits.ts', 'db`select count_hits(${x})`'],
        ['core/ledger.ts', 'db`select * from admit(${x})`; db`update carts set id = 3`'],
      ]),
      migrations,
    );
    expect(Object.fromEntries([...writers].map(([table, modules]) => [table, [...modules].sort()]))).toEqual({
      carts: ['core/ledger.ts', 'core/ledger.ts via admit()', 'function orphan (002.sql) via orphan()'],
      rate_limit_windows: ['core/rate-limits.ts via count_hits()'],
    });
  });

  it('has every table of the migrations written by one module of the product folders, SQL functions included', () => {
    const writers = tableWriters(productModules(), readMigrations(migrationFiles()));
    expect(writers.size).toBeGreaterThan(10);
    const notOneWriter = [...writers]
      .filter(([, byWriter]) => new Set([...byWriter].map(moduleOf)).size !== 1)
      .map(([table, byWriter]) => `${table}: ${[...byWriter].sort().join(', ')}`);
    expect(notOneWriter, 'tables written by more than one module, or by none').toEqual([]);
  });
});
