/**
 * MTH(D[n]) of RFC 9162 2.1.1 over leaf hashes, written by hand (no well-kept JS library does RFC 9162): one pass
 * through a CompactRange, O(n) time and O(log n) memory. Leaf hashes must be 32 bytes (leafHash of each entry).
 */
import { CompactRange } from './compact-range.ts';

export function rootFromLeafHashes(leafHashes: readonly Uint8Array[]): Uint8Array {
  const range = new CompactRange();
  for (const leaf of leafHashes) range.append(leaf);
  return range.root();
}
