import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionLike, type TLSConfig } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Config } from '../config.js';
import { temporalDataConverter } from './codec.js';

export interface Temporal {
  connection: Connection;
  client: Client;
  /**
   * With TEMPORAL_EAGER_START, in a process that also runs a cart worker: a client over that worker's
   * NativeConnection, through which a start may ask for eager start (the SDK allows it on no other
   * connection). The connection is the worker's, closed by whoever runs the worker.
   */
  eagerStarts?: { connection: ConnectionLike; client: Client };
  /** Closes the connection once no call is in flight, retries included. */
  close(): Promise<void>;
}

const CLOSE_WAIT_LIMIT_MS = 15_000;

/**
 * Counts calls from their start until their final status, which the SDK's retry interceptor (inside
 * this one) reports only when it has given up retrying. A retry still waiting on its timer when the
 * channel closes throws "Channel has been shut down" from that timer, an uncaught exception.
 */
function inFlightCounter() {
  let inFlight = 0;
  const idle: Array<() => void> = [];
  const interceptor: Interceptor = (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        inFlight++;
        next(metadata, {
          onReceiveStatus(status, nextStatus) {
            inFlight--;
            if (inFlight === 0) for (const resolve of idle.splice(0)) resolve();
            nextStatus(status);
          },
        });
      },
    });
  const settled = (limitMs: number) =>
    inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          idle.push(resolve);
          setTimeout(resolve, limitMs).unref();
        });
  return { interceptor, settled };
}

/**
 * Address, TLS and API key for a client or worker connection, from config: the PEM files are read
 * here, once, at start, so a wrong path stops the process before it takes traffic.
 */
export function temporalConnectionOptions(config: Pick<Config, 'temporal'>): { address: string; tls?: TLSConfig; apiKey?: string } {
  const { address, tls, apiKey } = config.temporal;
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read ${what} at ${path}: ${(err as Error).message}`);
    }
  };
  return {
    address,
    ...(apiKey ? { apiKey } : {}),
    ...(tls
      ? {
          tls: {
            ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
            ...(tls.caPath ? { serverRootCACertificate: read(tls.caPath, 'TEMPORAL_TLS_CA_PATH') } : {}),
            ...(tls.certPath && tls.keyPath
              ? { clientCertPair: { crt: read(tls.certPath, 'TEMPORAL_TLS_CERT_PATH'), key: read(tls.keyPath, 'TEMPORAL_TLS_KEY_PATH') } }
              : {}),
          },
        }
      : {}),
  };
}

/**
 * Connects lazily: the API can start (and answer /readyz with 503) before Temporal is up. Every
 * payload and failure message the client sends is encrypted with the keyring, and every one it reads decrypted.
 */
export function connectTemporal(config: Pick<Config, 'temporal' | 'keyring'>): Temporal {
  const calls = inFlightCounter();
  const connection = Connection.lazy({
    ...temporalConnectionOptions(config),
    interceptors: [calls.interceptor, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
  });
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: temporalDataConverter(config.keyring) });
  return {
    connection,
    client,
    async close() {
      await calls.settled(CLOSE_WAIT_LIMIT_MS);
      await connection.close();
    },
  };
}

/**
 * `temporal` with eager starts through `workerConnection`, the NativeConnection a cart worker of this
 * process polls on (docs/decisions/session-cost.md, "Eager workflow start"). Its identity, which the
 * server writes on the first WorkflowTaskStarted of every session it starts eagerly, says so.
 */
export function withEagerStarts(temporal: Temporal, config: Pick<Config, 'temporal' | 'keyring'>, workerConnection: ConnectionLike): Temporal {
  const client = new Client({
    connection: workerConnection,
    namespace: config.temporal.namespace,
    dataConverter: temporalDataConverter(config.keyring),
    identity: eagerStartIdentity(),
  });
  return { ...temporal, eagerStarts: { connection: workerConnection, client } };
}

/** Who a session's first workflow task was handed to in the start's answer: its WorkflowTaskStarted's identity. */
export function eagerStartIdentity(): string {
  return `${process.pid}@${hostname()} eager start`;
}

/**
 * Runs a Temporal call with a deadline. Without one, a query or update waits for as long as no worker
 * polls, and an HTTP request would hang with it. A call through the eager-start client gets it too.
 */
export function withDeadline<T>(temporal: Pick<Temporal, 'connection' | 'eagerStarts'>, ms: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  const eager = temporal.eagerStarts?.connection;
  return temporal.connection.withDeadline(deadline, eager ? () => eager.withDeadline(deadline, fn) : fn);
}
