/**
 * The checkpoint on the wire (CONTRACT section 8): a signed document (section 4) `{ origin, size, root_hash,
 * timestamp, signature }`. Written by hand with the rest of merkle/ (RFC 9162; no well-kept JS library has this API).
 * Only the shape is checked here; the signature is the signed-document verifier's job, and a verifier must also
 * check that `origin` is the log it expects (a checkpoint of another log proves nothing).
 */
import { fieldError } from '../errors/aar-error.ts';
import { readHash, readObject, readTreeSize } from './json-fields.ts';

export interface CheckpointJson {
  /** identifies the log: printable ASCII without spaces, at most 255 characters */
  origin: string;
  size: number;
  /** base64 MTH of the first `size` entries */
  root_hash: string;
  /** RFC 3339 UTC, e.g. `2025-01-31T12:00:00Z` */
  timestamp: string;
  /** present on a signed checkpoint; its shape is checked by the signed-document verifier */
  signature?: unknown;
}

const MEMBERS = ['origin', 'size', 'root_hash', 'timestamp', 'signature'];
const ORIGIN_PATTERN = /^[\x21-\x7e]{1,255}$/;
const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** Throws AarError `invalid_request` naming the field when the shape is wrong. */
export function parseCheckpointJson(value: unknown, path = ''): CheckpointJson {
  const object = readObject(value, path, MEMBERS);
  const { origin, timestamp } = object;
  if (typeof origin !== 'string' || !ORIGIN_PATTERN.test(origin)) {
    throw fieldError('invalid_request', `${path}/origin`, 'must be 1-255 printable ASCII characters without spaces');
  }
  const size = readTreeSize(object, 'size', path);
  const rootHash = readHash(object, 'root_hash', path);
  if (typeof timestamp !== 'string' || !TIMESTAMP_PATTERN.test(timestamp) || Number.isNaN(Date.parse(timestamp))) {
    throw fieldError('invalid_request', `${path}/timestamp`, 'must be an RFC 3339 UTC timestamp');
  }
  const checkpoint: CheckpointJson = { origin, size, root_hash: rootHash, timestamp };
  if ('signature' in object) checkpoint.signature = object.signature;
  return checkpoint;
}
