import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';

/**
 * The one writer of `generated_asset_hashes` (migration 051): each generated payment-page asset's
 * sha384, recorded the first time a process renders a page that links it (once per path per process,
 * so a page load costs no write after the first; only merchants' colours, never a colour someone asks for). A file made again with another hash is logged: its generator changed.
 */
export function generatedAssetRecorder(db: Db, logger: Logger) {
  const recorded = new Set<string>();
  return (path: string, sha384: string): void => {
    if (recorded.has(path)) return;
    recorded.add(path);
    db<{ sha384: string }[]>`
      insert into generated_asset_hashes (path, sha384) values (${path}, ${sha384})
      on conflict (path) do update set path = excluded.path returning sha384`
      .then(([row]) => {
        if (row && row.sha384 !== sha384) logger.warn({ path, recorded: row.sha384, made: sha384 }, 'generated asset differs from its recorded hash');
      })
      .catch((err: unknown) => {
        recorded.delete(path);
        logger.warn({ err, path }, 'recording a generated asset hash failed');
      });
  };
}

/** Every generated asset's recorded hash, by path: what the page walk and the tamper check compare with. */
export async function generatedAssetHashes(db: Db): Promise<Map<string, string>> {
  const rows = await db<{ path: string; sha384: string }[]>`select path, sha384 from generated_asset_hashes`;
  return new Map(rows.map((row) => [row.path, row.sha384]));
}
