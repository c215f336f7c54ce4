import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where the kernel picks the local ports of outgoing connections (Linux's default when it cannot be
 * read). A port handed out from there is free when picked but may be taken by a client's connection
 * before its server binds it: under load that failed a worker's start with EADDRINUSE.
 */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low && low > LOWEST_PORT + 1000 ? low : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}
const LOWEST_PORT = 10_000;
const DEFAULT_EPHEMERAL_START = 32_768;

/**
 * A TCP port nobody listens on right now, so tests can run beside a running `npm start`: below the
 * ephemeral range, so no outgoing connection takes it between the pick and the server's bind.
 */
export function freePort(): Promise<number> {
  return freePortBetween(LOWEST_PORT, ephemeralRangeStart());
}

/** Whether nobody listens on `port` of 127.0.0.1 right now (we could). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port in [from, to), for a server that stores its port where the kernel's ephemeral range
 * does not fit (temporal-server keeps membership ports in a PostgreSQL smallint: at most 32767).
 */
export async function freePortBetween(from: number, to: number): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port between ${from} and ${to} after 200 tries`);
}
