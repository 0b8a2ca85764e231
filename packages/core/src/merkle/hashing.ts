/**
 * RFC 9162 section 2.1.1 hashing, written by hand: no well-kept JS library does RFC 9162 proofs with this API.
 * The 0x00 / 0x01 prefixes separate leaves from interior nodes, so a leaf can never be passed off as a node
 * (second-preimage defence).
 */
import { sha256 } from '@noble/hashes/sha2.js';

/** Every hash of the tree is a SHA-256 digest. */
export const HASH_SIZE = 32;

/** MTH({}) = SHA-256 of the empty string. */
export const EMPTY_ROOT: Uint8Array = sha256(new Uint8Array(0));

/** MTH({d}) = SHA-256(0x00 ‖ d): the hash of one log entry. */
export function leafHash(entry: Uint8Array): Uint8Array {
  const input = new Uint8Array(entry.length + 1);
  input[0] = 0x00;
  input.set(entry, 1);
  return sha256(input);
}

/** SHA-256(0x01 ‖ left ‖ right): the hash of an interior node. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const input = new Uint8Array(left.length + right.length + 1);
  input[0] = 0x01;
  input.set(left, 1);
  input.set(right, left.length + 1);
  return sha256(input);
}
