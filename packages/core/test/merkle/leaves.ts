/** Test trees: leaf i is leafHash of the text `entry <i>`, so every leaf hash is distinct. */
import { leafHash } from '../../src/merkle/index.ts';

const encoder = new TextEncoder();

export function makeLeaves(count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => leafHash(encoder.encode(`entry ${i}`)));
}

export function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = bytes.slice();
  const at = Math.floor(bit / 8) % copy.length;
  copy[at] = (copy[at] as number) ^ (1 << (bit % 8));
  return copy;
}
