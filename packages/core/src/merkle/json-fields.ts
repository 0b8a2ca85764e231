/**
 * Strict readers for the Merkle wire shapes (CONTRACT section 8), written by hand with the rest of merkle/.
 * Private to merkle/. Attacker assumption: the document comes from the network; every refusal is an AarError
 * `invalid_request` whose path names the field (JSON pointer).
 */
import { fieldError } from '../errors/aar-error.ts';
import { decodeBase64 } from './base64.ts';
import { HASH_SIZE } from './hashing.ts';
import { isTreeSize } from './tree-math.ts';

/** No valid proof of a tree below 2^53 leaves has more hashes than this: a longer list is refused unread. */
export const MAX_PROOF_HASHES = 64;

/** The members of a plain object, after refusing any member outside `allowed` (reported at its own path). */
export function readObject(value: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fieldError('invalid_request', path, 'must be an object');
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw fieldError('invalid_request', `${path}/${escapePointer(key)}`, 'is not allowed');
  }
  return value as Record<string, unknown>;
}

export function readTreeSize(object: Record<string, unknown>, key: string, path: string): number {
  const value = object[key];
  if (!isTreeSize(value)) throw fieldError('invalid_request', `${path}/${key}`, 'must be a non-negative safe integer');
  return value;
}

/** A hash as canonical standard base64 of exactly 32 bytes; returns the text unchanged. */
export function readHash(object: Record<string, unknown>, key: string, path: string): string {
  const value = object[key];
  if (!isBase64Hash(value))
    throw fieldError('invalid_request', `${path}/${key}`, `must be a base64 ${HASH_SIZE}-byte hash`);
  return value;
}

export function readHashList(object: Record<string, unknown>, key: string, path: string): string[] {
  const value = object[key];
  if (!Array.isArray(value) || value.length > MAX_PROOF_HASHES) {
    throw fieldError('invalid_request', `${path}/${key}`, `must be an array of at most ${MAX_PROOF_HASHES} hashes`);
  }
  return value.map((item: unknown, i) => {
    if (!isBase64Hash(item)) {
      throw fieldError('invalid_request', `${path}/${key}/${i}`, `must be a base64 ${HASH_SIZE}-byte hash`);
    }
    return item;
  });
}

export function isBase64Hash(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 64 && decodeBase64(value)?.length === HASH_SIZE;
}

/** Decodes text already accepted by `isBase64Hash`. */
export function decodeHash(text: string): Uint8Array {
  return decodeBase64(text) as Uint8Array;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
