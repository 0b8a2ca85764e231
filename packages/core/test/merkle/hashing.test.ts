import { describe, expect, it } from 'vitest';
import { EMPTY_ROOT, HASH_SIZE, leafHash, nodeHash, rootFromLeafHashes } from '../../src/merkle/index.ts';
import { encodeBase64 } from '../../src/merkle/base64.ts';
import { refNodeHash } from './reference.ts';

describe('RFC 9162 hashing', () => {
  it('hashes the empty tree as SHA-256 of the empty string', () => {
    expect(encodeBase64(EMPTY_ROOT)).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
    expect(rootFromLeafHashes([])).toEqual(EMPTY_ROOT);
  });

  it('prefixes leaves with 0x00 (the empty entry gives the vectors leaf 0)', () => {
    expect(encodeBase64(leafHash(new Uint8Array(0)))).toBe('bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=');
    expect(leafHash(Uint8Array.of(1, 2))).toHaveLength(HASH_SIZE);
  });

  it('prefixes nodes with 0x01, so a node never equals a leaf over the same bytes', () => {
    const a = leafHash(Uint8Array.of(1));
    const b = leafHash(Uint8Array.of(2));
    expect(nodeHash(a, b)).toEqual(refNodeHash(a, b));
    expect(nodeHash(a, b)).not.toEqual(leafHash(Uint8Array.of(...a, ...b)));
    expect(nodeHash(a, b)).not.toEqual(nodeHash(b, a));
  });

  it('is the leaf hash itself for a one-leaf tree', () => {
    const leaf = leafHash(Uint8Array.of(7));
    expect(rootFromLeafHashes([leaf])).toEqual(leaf);
  });
});
