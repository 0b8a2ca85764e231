/**
 * Input checks shared by the verifiers, written by hand with the rest of merkle/. Private to merkle/.
 * Attacker assumption: every argument of a verifier may come from the network with any type.
 */
import { HASH_SIZE } from './hashing.ts';

export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

export function isHash(value: unknown): value is Uint8Array {
  return isBytes(value) && value.length === HASH_SIZE;
}

export function isHashList(value: unknown): value is readonly Uint8Array[] {
  return Array.isArray(value) && value.every(isHash);
}
