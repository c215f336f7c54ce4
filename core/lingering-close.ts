import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

export interface Linger {
  /** Long enough for a client busy writing its body to finish and read its answer. */
  ms: number;
  /** A body this far over any limit is no mistake worth answering; reading it costs ~50 ms of CPU. */
  bytes: number;
}

export const LINGER: Linger = { ms: 2_000, bytes: 64 * 1024 * 1024 };

/**
 * Closes the server's connections so that a client can read their last answer. Node ends a
 * connection that answered with `Connection: close` by destroying its socket as soon as the answer
 * is written. When that answer came before the request's body was read (a 413 for a body over its
 * limit), the client is still sending; the kernel answers what reaches the closed socket with a
 * reset, and the reset throws away the answer the client had not read yet: it sees EPIPE, not the
 * 413. Here the socket instead sends its end of the stream and goes on reading and dropping the
 * rest of the body, until the client closes its side, `linger.ms` has passed or `linger.bytes`
 * were dropped.
 */
export function closeConnectionsLingering(server: Server, linger: Linger = LINGER): void {
  server.on('request', (request: IncomingMessage) => {
    // Node's server closes a connection through destroySoon, once the last answer has finished.
    request.socket.destroySoon = () => closeLingering(request, linger);
  });
}

const lingering = new WeakSet<Socket>();

function closeLingering(request: IncomingMessage, linger: Linger): void {
  const { socket } = request;
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  const cut = setTimeout(() => socket.destroy(), linger.ms).unref();
  socket.once('close', () => clearTimeout(cut));
  socket.once('end', () => socket.destroy());
  // What read the body may have stopped (the answer came first): drop the rest, as Node does
  // for a body nobody read, so the client's writes are taken in rather than reset.
  let dropped = 0;
  request.removeAllListeners('data');
  request.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > linger.bytes) socket.destroy();
  });
  request.resume();
  socket.end();
}
