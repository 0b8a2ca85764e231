/**
 * An append-only Merkle frontier in the style of transparency-dev/merkle `compact.Range`, written by hand: no well-kept
 * JS library does RFC 9162 trees with this API. It holds the roots of the perfect subtrees that cover [0, size), one
 * per one bit of size, left (largest) to right, so append and root cost O(log n) time and memory.
 * The server persists `toJSON()` beside its checkpoint and resumes with `fromJSON()` after a restart.
 */
import { fieldError } from '../errors/aar-error.ts';
import { decodeBase64, encodeBase64 } from './base64.ts';
import { EMPTY_ROOT, HASH_SIZE, nodeHash } from './hashing.ts';
import type { PerfectRange } from './perfect-range.ts';
import { countOnes, half, isOdd, isTreeSize } from './tree-math.ts';

export interface CompactRangeJson {
  size: number;
  /** base64 roots of the perfect subtrees covering [0, size), largest first; one per one bit of size */
  hashes: string[];
}

/** Called with every perfect subtree hash an append creates (the leaf itself included), e.g. to store it. */
export type VisitNodeFn = (range: PerfectRange, hash: Uint8Array) => void;

export class CompactRange {
  #size: number;
  // INVARIANT: #hashes.length === countOnes(#size); #hashes[i] is the root of the i-th perfect subtree from the left.
  readonly #hashes: Uint8Array[];

  constructor() {
    this.#size = 0;
    this.#hashes = [];
  }

  get size(): number {
    return this.#size;
  }

  /** Copies of the frontier hashes, largest subtree first. */
  get hashes(): Uint8Array[] {
    return this.#hashes.map((hash) => hash.slice());
  }

  /** Appends one leaf hash (leafHash(entry), 32 bytes). Throws if the hash has another length or the log is full. */
  append(leaf: Uint8Array, visit?: VisitNodeFn): void {
    if (!(leaf instanceof Uint8Array) || leaf.length !== HASH_SIZE) {
      throw fieldError('invalid_request', '/leaf_hash', `must be ${HASH_SIZE} bytes`);
    }
    if (!Number.isSafeInteger(this.#size + 1)) {
      throw fieldError('invalid_request', '/size', 'the tree is full');
    }
    let hash: Uint8Array = leaf.slice();
    let width = 1;
    let begin = this.#size;
    visit?.({ begin, end: begin + 1 }, hash.slice());
    // Each trailing one bit of size is a perfect subtree of the current width that the new node completes.
    for (let rest = this.#size; isOdd(rest); rest = half(rest)) {
      const left = this.#hashes.pop() as Uint8Array;
      hash = nodeHash(left, hash);
      begin -= width;
      width *= 2;
      visit?.({ begin, end: begin + width }, hash.slice());
    }
    this.#hashes.push(hash);
    this.#size += 1;
  }

  /** MTH of the leaves appended so far (RFC 9162 2.1.1): the frontier folded from the right. */
  root(): Uint8Array {
    let hash = this.#hashes.at(-1);
    if (hash === undefined) return EMPTY_ROOT.slice();
    for (let i = this.#hashes.length - 2; i >= 0; i--) {
      hash = nodeHash(this.#hashes[i] as Uint8Array, hash);
    }
    return hash;
  }

  toJSON(): CompactRangeJson {
    return { size: this.#size, hashes: this.#hashes.map(encodeBase64) };
  }

  /**
   * Restores a frontier saved by `toJSON`. Throws AarError `invalid_request` naming the field (`/size`, `/hashes/2`)
   * when the shape is wrong. It cannot tell a forged frontier from a true one: compare `root()` with a signed
   * checkpoint of the same size before trusting it.
   */
  static fromJSON(value: unknown, path = ''): CompactRange {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw fieldError('invalid_request', path, 'must be an object `{ size, hashes }`');
    }
    for (const key of Object.keys(value)) {
      if (key !== 'size' && key !== 'hashes') throw fieldError('invalid_request', `${path}/${key}`, 'is not allowed');
    }
    const { size, hashes } = value as Record<string, unknown>;
    if (!isTreeSize(size) || !Number.isSafeInteger(size + 1)) {
      throw fieldError('invalid_request', `${path}/size`, 'must be a non-negative safe integer');
    }
    if (!Array.isArray(hashes) || hashes.length !== countOnes(size)) {
      throw fieldError('invalid_request', `${path}/hashes`, `must be an array of ${countOnes(size)} hashes`);
    }
    const range = new CompactRange();
    hashes.forEach((text: unknown, i) => {
      const hash = typeof text === 'string' ? decodeBase64(text) : undefined;
      if (hash === undefined || hash.length !== HASH_SIZE) {
        throw fieldError('invalid_request', `${path}/hashes/${i}`, `must be a base64 ${HASH_SIZE}-byte hash`);
      }
      range.#hashes.push(hash);
    });
    range.#size = size;
    return range;
  }
}
