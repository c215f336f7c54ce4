import { fileURLToPath } from 'node:url';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
// A CommonJS package whose named exports Node's ESM loader cannot see: the default import works in both Node and vitest.
import proto from '@temporalio/proto';
import type { Keyring } from '../crypto.js';

/**
 * Workflow and activity payloads (inputs, results, queries, updates, signals, memos, failures'
 * details, and failures' messages and stacks: see temporalDataConverter) are encrypted before they
 * reach Temporal: its history holds contacts, `extra` and card tokens, and whoever reads the history
 * (the UI, a backup, the cluster's operators) must not read them. Each payload becomes one `binary/encrypted` payload whose data is the whole original payload
 * (protobuf), AES-256-GCM under the keyring's newest key, that key's id in the metadata. Search
 * attributes do not go through codecs: they stay clear, and hold nothing personal.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const ENCRYPTION_KEY_ID = 'encryption-key-id';

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;
const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (bytes: Uint8Array | null | undefined) => (bytes ? new TextDecoder().decode(bytes) : undefined);

/** One payload decrypted; payloads written before encryption (recorded histories, running workflows) pass through. */
export function decodePayload(keyring: Keyring, payload: Payload): Payload {
  if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
  const keyId = text(payload.metadata?.[ENCRYPTION_KEY_ID]);
  if (!keyId) throw new Error(`an encrypted payload without ${ENCRYPTION_KEY_ID}`);
  const decoded = PayloadMessage.decode(keyring.decryptBytes(keyId, payload.data ?? new Uint8Array()));
  return { metadata: decoded.metadata, data: decoded.data };
}

export function createEncryptionCodec(keyring: Keyring): PayloadCodec {
  return {
    encode(payloads) {
      return Promise.resolve(
        payloads.map((payload): Payload => {
          const { keyId, data } = keyring.encryptBytes(PayloadMessage.encode(payload).finish());
          return { metadata: { encoding: utf8(ENCRYPTED_ENCODING), [ENCRYPTION_KEY_ID]: utf8(keyId) }, data };
        }),
      );
    },
    decode(payloads) {
      return Promise.resolve(payloads.map((payload) => decodePayload(keyring, payload)));
    },
  };
}

/**
 * The one data converter of every client and worker: payloads encrypted by the codec, and failures'
 * messages and stack traces moved into an encoded attribute the codec encrypts too (the converter's
 * module says why it is loaded by path). Operators' decoding (api/codec/) reads both alike.
 */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

export function temporalDataConverter(keyring: Keyring): DataConverter {
  return { payloadCodecs: [createEncryptionCodec(keyring)], failureConverterPath: FAILURE_CONVERTER_PATH };
}

/** A payload in the remote codec protocol's JSON (proto3 JSON: bytes as base64). */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export function payloadFromJson(json: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(json.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(json.data ?? '', 'base64'),
  };
}

export function payloadToJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}
