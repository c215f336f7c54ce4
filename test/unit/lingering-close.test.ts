import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { onError } from '../../api/errors.js';
import { jsonBody, readJsonBody } from '../../api/json-body.js';
import { listen, type Listening } from '../../core/http-service.js';
import type { Linger } from '../../core/lingering-close.js';

const LIMIT = 256 * 1024;

function limitedApp(): Hono {
  const app = new Hono();
  app.post('/', jsonBody(LIMIT), async (c) => c.json(await readJsonBody(c)));
  app.onError(onError);
  return app;
}

/** `allowHalfOpen`: a client that goes on sending after the server has closed its side, as a careless one does. */
function connectTo(url: string, options: { allowHalfOpen?: boolean } = {}) {
  const { hostname, port } = new URL(url);
  return connect({ port: Number(port), host: hostname, ...options });
}

/** As many clients send a request: the whole body first, and only then is the answer read. */
function sendWholeBodyThenRead(url: string, bodyBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTo(url);
    socket.on('error', reject);
    socket.write(`POST / HTTP/1.1\r\nHost: shop.example\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`);
    socket.write(Buffer.alloc(bodyBytes, 0x20), (err) => {
      if (err) return;
      let answer = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('end', () => resolve(answer));
    });
  });
}

/** A client that never stops sending its body, reading whatever comes back meanwhile, until the connection closes. */
function streamWithoutEnd(url: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connectTo(url, { allowHalfOpen: true });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    socket.write('POST / HTTP/1.1\r\nHost: shop.example\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = `4000\r\n${' '.repeat(0x4000)}\r\n`;
    const pump = () => {
      while (!socket.destroyed) if (!socket.write(chunk)) return void socket.once('drain', pump);
    };
    pump();
  });
}

describe('a connection closed after refusing a body', () => {
  const servers: Listening[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  async function serving(linger?: Linger): Promise<string> {
    const server = await listen(limitedApp().fetch, { linger });
    servers.push(server);
    return server.url;
  }

  it('lets a client that sends its whole body before reading read the 413, not a reset', async () => {
    const url = await serving();
    for (let round = 0; round < 5; round++) {
      const answer = await sendWholeBodyThenRead(url, 4 * 1024 * 1024);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
    }
  });

  it('cuts off a client that never stops sending once the linger has passed, after it has had its 413', async () => {
    const answer = await streamWithoutEnd(await serving({ ms: 100, bytes: Number.MAX_SAFE_INTEGER }));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('cuts off a client that never stops sending once the linger has dropped its bytes, however long it has left', async () => {
    const answer = await streamWithoutEnd(await serving({ ms: 600_000, bytes: 1024 * 1024 }));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});
