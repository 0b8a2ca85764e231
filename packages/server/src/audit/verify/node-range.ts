/**
 * The RFC 9162 compact range of core (`CompactRange`, merkle/compact-range.ts) over Node's native SHA-256: the same
 * hashes, but the verifier and bulk writers hash millions of nodes, and core's hasher is portable JavaScript.
 * Hashes are 32-byte Buffers; the visitor gets each node's (level, index) address, as `audit_nodes` keys it.
 * INVARIANT: agrees with core's CompactRange hash for hash (tested in test/audit/node-range.test.ts).
 */
import crypto, { createHash } from 'node:crypto';
import { CompactRange } from '@aar/core';

const LEAF_PREFIX = Buffer.of(0x00);
const EMPTY_ROOT = createHash('sha256').digest();

// One-shot hashing (`crypto.hash`, Node 20.12+) over a reused buffer costs about two thirds of a Hash object per call;
// a million leaves and a million nodes make that a second. Older Nodes take createHash.
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer }).hash;
let scratch = Buffer.allocUnsafe(4096);
const nodeInput = Buffer.allocUnsafe(65);
nodeInput[0] = 0x01;

/** SHA-256(0x00 ‖ text as UTF-8): the leaf hash of an entry's bytes. */
export function leafHashOf(text: string): Buffer {
  if (!oneShot) return createHash('sha256').update(LEAF_PREFIX).update(text, 'utf8').digest();
  // at most 3 bytes per UTF-16 unit, so the text always fits
  if (scratch.length < text.length * 3 + 1) scratch = Buffer.allocUnsafe(text.length * 3 + 1);
  scratch[0] = 0x00;
  const length = scratch.write(text, 1, 'utf8');
  return oneShot('sha256', scratch.subarray(0, length + 1), 'buffer');
}

/** SHA-256(0x01 ‖ left ‖ right), both 32 bytes. */
export function nodeHashOf(left: Buffer, right: Buffer): Buffer {
  if (!oneShot) return createHash('sha256').update(nodeInput.subarray(0, 1)).update(left).update(right).digest();
  left.copy(nodeInput, 1);
  right.copy(nodeInput, 33);
  return oneShot('sha256', nodeInput, 'buffer');
}

export type VisitNode = (level: number, index: number, hash: Buffer) => void;

export class NodeRange {
  #size: number;
  // INVARIANT: one hash per one bit of #size, the largest perfect subtree first (core's CompactRange layout)
  readonly #hashes: Buffer[];

  private constructor(size: number, hashes: Buffer[]) {
    this.#size = size;
    this.#hashes = hashes;
  }

  static empty(): NodeRange {
    return new NodeRange(0, []);
  }

  /** From core's `{ size, hashes }` JSON (the tip's frontier); throws on a malformed one. */
  static fromJSON(value: unknown): NodeRange {
    const range = CompactRange.fromJSON(value);
    return new NodeRange(
      range.size,
      range.hashes.map((h) => Buffer.from(h)),
    );
  }

  get size(): number {
    return this.#size;
  }

  toJSON(): { size: number; hashes: string[] } {
    return { size: this.#size, hashes: this.#hashes.map((h) => h.toString('base64')) };
  }

  /** Appends a leaf hash; `visit` sees the leaf (level 0) and every node it completes, lowest first. */
  append(leaf: Buffer, visit?: VisitNode): void {
    let hash = leaf;
    let level = 0;
    let index = this.#size;
    visit?.(0, index, hash);
    for (let rest = this.#size; rest % 2 === 1; rest = (rest - 1) / 2) {
      hash = nodeHashOf(this.#hashes.pop()!, hash);
      level += 1;
      index = Math.floor(index / 2);
      visit?.(level, index, hash);
    }
    this.#hashes.push(hash);
    this.#size += 1;
  }

  /** MTH of the leaves so far. */
  root(): Buffer {
    let hash = this.#hashes.at(-1);
    if (hash === undefined) return EMPTY_ROOT;
    for (let i = this.#hashes.length - 2; i >= 0; i--) hash = nodeHashOf(this.#hashes[i]!, hash);
    return hash;
  }
}
