import { createServer } from 'node:net';

/** A TCP port nobody listens on right now, so tests can run beside a running `npm start`. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function listensOn(port: number): Promise<boolean> {
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
    if (await listensOn(port)) return port;
  }
  throw new Error(`no free port between ${from} and ${to} after 200 tries`);
}
