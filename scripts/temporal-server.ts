import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../workflows/cart-session/messages.js';
import { freePort } from './free-port.js';
import { TEMPORAL_DYNAMIC_CONFIG } from './temporal-dynamic-config.js';
import { superviseServer } from './server-process.js';

export interface TemporalDevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop: () => Promise<void>;
}

export interface TemporalDevServerOptions {
  cli: string;
  port: number;
  /** Omit for a headless server (tests). */
  uiPort?: number;
  /** The codec endpoint the UI decodes encrypted payloads through (a path: on the origin the UI is served from). */
  uiCodecEndpoint?: string;
  /** The UI's base path, when it is served behind another server (the dashboard's `/dashboard/temporal`). */
  uiPublicPath?: string;
  /** Persistent SQLite file; omit for an in-memory server whose sessions die with it. */
  dbFile?: string;
  /** Faster, unsafe SQLite settings: for throwaway test servers only. */
  fastUnsafeStorage?: boolean;
  /** `--dynamic-config-value` settings, e.g. to make a limit small enough for a test to reach. */
  dynamicConfig?: Record<string, number | string | boolean>;
  log?: (line: string) => void;
}

/** Runs `temporal server start-dev` with our search attributes and waits until it answers. */
export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const address = `127.0.0.1:${options.port}`;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--http-port', String(await freePort()), '--log-level', 'error'];
  args.push(...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']));
  if (options.uiPort && options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.uiPort && options.uiPublicPath) args.push('--ui-public-path', options.uiPublicPath);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.fastUnsafeStorage) args.push('--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=OFF');
  for (const definition of SEARCH_ATTRIBUTE_DEFINITIONS) args.push('--search-attribute', definition);
  // The CLI turns the search-attribute cache off so that attributes registered while it runs show at
  // once; ours are all registered above, at start, and with the cache off every start and upsert
  // read the cluster metadata from SQLite again, several times (docs/decisions/session-cost.md).
  const dynamicConfig = { 'system.forceSearchAttributesCacheRefreshOnRead': false, ...TEMPORAL_DYNAMIC_CONFIG, ...options.dynamicConfig };
  for (const [key, value] of Object.entries(dynamicConfig)) args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);

  const child = spawn(options.cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const { output, stop } = superviseServer(child, options.log);

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal server exited with code ${child.exitCode}:\n${output()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
      } finally {
        await connection.close();
      }
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`temporal server did not become ready on ${address}: ${String(err)}\n${output()}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return { address, uiUrl: options.uiPort ? `http://localhost:${options.uiPort}` : undefined, process: child, stop };
}
