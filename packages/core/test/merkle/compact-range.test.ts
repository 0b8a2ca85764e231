import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactRange, EMPTY_ROOT, InMemoryNodeHashReader, type PerfectRange } from '../../src/merkle/index.ts';
import { encodeBase64 } from '../../src/merkle/base64.ts';
import { makeLeaves } from './leaves.ts';
import { refRoot } from './reference.ts';

const LEAVES = makeLeaves(300);

describe('CompactRange', () => {
  it('has the root of every prefix, 0..300 leaves, and keeps one hash per one bit of the size', () => {
    const range = new CompactRange();
    expect(range.root()).toEqual(EMPTY_ROOT);
    LEAVES.forEach((leaf, i) => {
      range.append(leaf);
      expect(range.size).toBe(i + 1);
      expect(range.root()).toEqual(refRoot(LEAVES.slice(0, i + 1)));
      expect(range.hashes).toHaveLength((i + 1).toString(2).replaceAll('0', '').length);
    });
  });

  it('resumes from its JSON form after any prefix, as after a restart', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 1, max: 150 }), (saved, more) => {
        const before = new CompactRange();
        LEAVES.slice(0, saved).forEach((leaf) => before.append(leaf));
        const stored = JSON.parse(JSON.stringify(before)) as unknown;
        const resumed = CompactRange.fromJSON(stored);
        expect(resumed.toJSON()).toEqual(before.toJSON());
        LEAVES.slice(saved, saved + more).forEach((leaf) => resumed.append(leaf));
        expect(resumed.root()).toEqual(refRoot(LEAVES.slice(0, saved + more)));
      }),
      { numRuns: 100 },
    );
  });

  it('reports every perfect subtree it completes, with the hash a reader computes', () => {
    const reader = new InMemoryNodeHashReader(LEAVES.slice(0, 37));
    const seen: PerfectRange[] = [];
    const range = new CompactRange();
    for (const leaf of LEAVES.slice(0, 37)) {
      range.append(leaf, (node, hash) => {
        seen.push(node);
        expect(hash).toEqual(reader.perfectSubtreeHash(node.begin, node.end));
      });
    }
    // 37 leaves + 18 pairs + 9 quads + 4 of 8 + 2 of 16 + 1 of 32
    expect(seen).toHaveLength(37 + 18 + 9 + 4 + 2 + 1);
    expect(seen).toContainEqual({ begin: 0, end: 32 });
  });

  it('does not let a caller change its state through returned hashes or the appended leaf', () => {
    const range = new CompactRange();
    const leaf = LEAVES[0]!.slice();
    range.append(leaf);
    leaf.fill(0);
    range.hashes[0]!.fill(0);
    expect(range.root()).toEqual(LEAVES[0]);
  });

  it('refuses a leaf hash that is not 32 bytes', () => {
    const range = new CompactRange();
    expect(() => range.append(new Uint8Array(31))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(range.size).toBe(0);
  });

  const hash = encodeBase64(LEAVES[0]!);
  it.each([
    ['not an object', [], ''],
    ['null', null, ''],
    ['an unknown member', { size: 1, hashes: [hash], extra: 1 }, '/extra'],
    ['a negative size', { size: -1, hashes: [] }, '/size'],
    ['a fractional size', { size: 1.5, hashes: [hash] }, '/size'],
    ['an unsafe size', { size: 2 ** 53, hashes: [hash] }, '/size'],
    ['a size given as text', { size: '1', hashes: [hash] }, '/size'],
    ['too few hashes for the size', { size: 3, hashes: [hash] }, '/hashes'],
    ['too many hashes for the size', { size: 4, hashes: [hash, hash] }, '/hashes'],
    ['a hash of 31 bytes', { size: 1, hashes: [encodeBase64(new Uint8Array(31))] }, '/hashes/0'],
    ['a hash in base64url', { size: 3, hashes: [hash, `-${hash.slice(1)}`] }, '/hashes/1'],
  ])('fromJSON refuses %s, naming the field', (_, value, path) => {
    expect(() => CompactRange.fromJSON(value)).toThrow(
      expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path })] }),
    );
  });
});
