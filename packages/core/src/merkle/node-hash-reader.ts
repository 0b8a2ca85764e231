/**
 * Where proof generation reads node hashes, written by hand (RFC 9162; no well-kept JS library has this API).
 * Proofs only ever need perfect subtrees (see perfect-range.ts), so a store that keeps every perfect node hash
 * (CompactRange's visit callback reports them on append) can serve proofs without rehashing leaves.
 */
import { AarError } from '../errors/aar-error.ts';
import { nodeHash } from './hashing.ts';
import { isPerfectRange } from './perfect-range.ts';

export interface NodeHashReader {
  /** Number of leaves the reader can serve. */
  readonly size: number;
  /** Hash of the perfect subtree over leaves [begin, end); callers only ask for ranges inside [0, size). */
  perfectSubtreeHash(begin: number, end: number): Uint8Array;
}

/** Reads node hashes of an in-memory list of leaf hashes; builds every perfect node once, O(n) time and memory. */
export class InMemoryNodeHashReader implements NodeHashReader {
  // levels[h][j] is the root of the perfect subtree over leaves [j * 2^h, (j + 1) * 2^h).
  readonly #levels: Uint8Array[][];

  constructor(leafHashes: readonly Uint8Array[]) {
    const levels: Uint8Array[][] = [[...leafHashes]];
    let below = levels[0] as Uint8Array[];
    while (below.length > 1) {
      const level: Uint8Array[] = [];
      for (let j = 0; j + 1 < below.length; j += 2) {
        level.push(nodeHash(below[j] as Uint8Array, below[j + 1] as Uint8Array));
      }
      levels.push(level);
      below = level;
    }
    this.#levels = levels;
  }

  get size(): number {
    return (this.#levels[0] as Uint8Array[]).length;
  }

  perfectSubtreeHash(begin: number, end: number): Uint8Array {
    if (!isPerfectRange(begin, end) || end > this.size) {
      throw new AarError('internal', `\`[${begin}, ${end})\` is not a perfect subtree of a tree of size ${this.size}`);
    }
    const width = end - begin;
    const height = Math.round(Math.log2(width));
    return this.#levels[height]?.[begin / width] as Uint8Array;
  }
}

/** A reader as given, or an in-memory reader over a list of leaf hashes. */
export function toNodeHashReader(source: NodeHashReader | readonly Uint8Array[]): NodeHashReader {
  return isLeafHashList(source) ? new InMemoryNodeHashReader(source) : source;
}

function isLeafHashList(source: NodeHashReader | readonly Uint8Array[]): source is readonly Uint8Array[] {
  return Array.isArray(source);
}
