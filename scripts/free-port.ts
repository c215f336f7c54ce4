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
 * The ports the Fetch standard blocks ("bad ports"): Node's fetch refuses them with `bad port`
 * before connecting, so a server picked there cannot be reached by the tests' or the bench's clients
 * (a CI run failed a whole suite when the API drew 10080).
 */
const FETCH_BLOCKED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/**
 * A free port in [from, to), for a server that stores its port where the kernel's ephemeral range
 * does not fit (temporal-server keeps membership ports in a PostgreSQL smallint: at most 32767).
 */
export async function freePortBetween(from: number, to: number): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (!FETCH_BLOCKED_PORTS.has(port) && (await portIsFree(port))) return port;
  }
  throw new Error(`no free port between ${from} and ${to} after 200 tries`);
}
