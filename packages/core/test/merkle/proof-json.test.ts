import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  consistencyProofToJson,
  inclusionProof,
  inclusionProofToJson,
  parseCheckpointJson,
  parseConsistencyProofJson,
  parseInclusionProofJson,
  rootFromLeafHashes,
  verifyConsistencyProofJson,
  verifyInclusionProofJson,
} from '../../src/merkle/index.ts';
import { encodeBase64 } from '../../src/merkle/base64.ts';
import { makeLeaves } from './leaves.ts';

const LEAVES = makeLeaves(13);
const ROOT = encodeBase64(rootFromLeafHashes(LEAVES));
const ROOT5 = encodeBase64(rootFromLeafHashes(LEAVES.slice(0, 5)));
const INCLUSION = inclusionProofToJson(6, 13, LEAVES[6]!, inclusionProof(LEAVES, 6, 13));
const CONSISTENCY = consistencyProofToJson(5, 13, consistencyProof(LEAVES, 5, 13));
const HASH = INCLUSION.leaf_hash;

function refusal(path: string): unknown {
  return expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path })] });
}

describe('inclusion proof JSON', () => {
  it('round-trips through JSON text and verifies against the base64 root', () => {
    const wire = JSON.parse(JSON.stringify(INCLUSION)) as unknown;
    expect(parseInclusionProofJson(wire)).toEqual(INCLUSION);
    expect(INCLUSION.hashes).toHaveLength(4);
    expect(verifyInclusionProofJson(wire, ROOT)).toEqual({ valid: true });
  });

  it('fails a proof swapped onto another leaf, and one checked against another root', () => {
    expect(verifyInclusionProofJson({ ...INCLUSION, leaf_hash: encodeBase64(LEAVES[7]!) }, ROOT)).toEqual({
      valid: false,
      failure: 'root_mismatch',
    });
    expect(verifyInclusionProofJson(INCLUSION, ROOT5)).toEqual({ valid: false, failure: 'root_mismatch' });
    expect(verifyInclusionProofJson({ ...INCLUSION, leaf_index: 13 }, ROOT)).toEqual({
      valid: false,
      failure: 'index_out_of_range',
    });
  });

  it('never throws on a malformed document or root', () => {
    expect(verifyInclusionProofJson('proof', ROOT)).toEqual({ valid: false, failure: 'malformed_proof' });
    expect(verifyInclusionProofJson({ ...INCLUSION, hashes: null }, ROOT)).toEqual({
      valid: false,
      failure: 'malformed_proof',
    });
    expect(verifyInclusionProofJson(INCLUSION, ROOT.slice(1))).toEqual({ valid: false, failure: 'malformed_root' });
    expect(verifyInclusionProofJson(INCLUSION, 42)).toEqual({ valid: false, failure: 'malformed_root' });
  });

  it.each([
    ['a missing leaf_index', { ...INCLUSION, leaf_index: undefined }, '/leaf_index'],
    ['a negative leaf_index', { ...INCLUSION, leaf_index: -1 }, '/leaf_index'],
    ['an unsafe leaf_index', { ...INCLUSION, leaf_index: JSON.parse('18446744073709551615') as number }, '/leaf_index'],
    ['a tree_size given as text', { ...INCLUSION, tree_size: '13' }, '/tree_size'],
    ['a fractional tree_size', { ...INCLUSION, tree_size: 13.5 }, '/tree_size'],
    ['a leaf_hash in hex', { ...INCLUSION, leaf_hash: '00'.repeat(32) }, '/leaf_hash'],
    ['a leaf_hash without padding', { ...INCLUSION, leaf_hash: HASH.slice(0, -1) }, '/leaf_hash'],
    ['hashes not an array', { ...INCLUSION, hashes: HASH }, '/hashes'],
    ['65 hashes', { ...INCLUSION, hashes: Array<string>(65).fill(HASH) }, '/hashes'],
    ['an empty hash', { ...INCLUSION, hashes: [HASH, ''] }, '/hashes/1'],
    ['an unknown member', { ...INCLUSION, root_hash: HASH }, '/root_hash'],
  ])('parse refuses %s, naming the field', (_, value, path) => {
    expect(() => parseInclusionProofJson(value)).toThrow(refusal(path));
  });

  it('names fields under the path of the embedding document', () => {
    const value = { ...INCLUSION, leaf_hash: 1 };
    expect(() => parseInclusionProofJson(value, '/inclusion_proof')).toThrow(refusal('/inclusion_proof/leaf_hash'));
    expect(() => parseInclusionProofJson([], '/inclusion_proof')).toThrow(refusal('/inclusion_proof'));
  });
});

describe('consistency proof JSON', () => {
  it('round-trips and verifies between the two base64 roots', () => {
    const wire = JSON.parse(JSON.stringify(CONSISTENCY)) as unknown;
    expect(parseConsistencyProofJson(wire)).toEqual(CONSISTENCY);
    expect(verifyConsistencyProofJson(wire, ROOT5, ROOT)).toEqual({ valid: true });
  });

  it('fails with the roots swapped, with size1 > size2, and from the empty tree', () => {
    expect(verifyConsistencyProofJson(CONSISTENCY, ROOT, ROOT5).valid).toBe(false);
    expect(verifyConsistencyProofJson({ ...CONSISTENCY, size1: 14 }, ROOT5, ROOT)).toEqual({
      valid: false,
      failure: 'size1_gt_size2',
    });
    expect(verifyConsistencyProofJson({ ...CONSISTENCY, size1: 0 }, ROOT5, ROOT)).toEqual({
      valid: false,
      failure: 'size1_zero',
    });
  });

  it('never throws on a malformed document or root', () => {
    expect(verifyConsistencyProofJson(undefined, ROOT5, ROOT)).toEqual({ valid: false, failure: 'malformed_proof' });
    expect(verifyConsistencyProofJson(CONSISTENCY, ROOT5, null)).toEqual({ valid: false, failure: 'malformed_root' });
  });

  it.each([
    ['a missing size1', { size2: 13, hashes: [] }, '/size1'],
    ['a size2 of 2^53', { ...CONSISTENCY, size2: 2 ** 53 }, '/size2'],
    ['a hash of 33 bytes', { ...CONSISTENCY, hashes: [encodeBase64(new Uint8Array(33))] }, '/hashes/0'],
    ['an unknown member', { ...CONSISTENCY, root1: HASH }, '/root1'],
  ])('parse refuses %s, naming the field', (_, value, path) => {
    expect(() => parseConsistencyProofJson(value)).toThrow(refusal(path));
  });
});

describe('checkpoint JSON', () => {
  const checkpoint = { origin: 'aar.example/audit', size: 13, root_hash: ROOT, timestamp: '2025-01-31T12:00:00Z' };

  it('accepts the four members, with or without a signature member', () => {
    expect(parseCheckpointJson(checkpoint)).toEqual(checkpoint);
    const signature = { algorithm: 'ed25519', key_id: 'ns:key:log', signature: 'AA' };
    expect(parseCheckpointJson({ ...checkpoint, signature })).toEqual({ ...checkpoint, signature });
    expect(parseCheckpointJson({ ...checkpoint, timestamp: '2025-01-31T12:00:00.123Z' }).timestamp).toBe(
      '2025-01-31T12:00:00.123Z',
    );
  });

  it.each([
    ['an empty origin', { ...checkpoint, origin: '' }, '/origin'],
    ['an origin with a space', { ...checkpoint, origin: 'my log' }, '/origin'],
    ['a negative size', { ...checkpoint, size: -1 }, '/size'],
    ['a root_hash of 31 bytes', { ...checkpoint, root_hash: encodeBase64(new Uint8Array(31)) }, '/root_hash'],
    ['a timestamp with an offset', { ...checkpoint, timestamp: '2025-01-31T12:00:00+01:00' }, '/timestamp'],
    ['a timestamp of Unix seconds', { ...checkpoint, timestamp: 1738324800 }, '/timestamp'],
    ['an impossible date', { ...checkpoint, timestamp: '2025-13-01T00:00:00Z' }, '/timestamp'],
    ['an unknown member', { ...checkpoint, tree_size: 13 }, '/tree_size'],
  ])('refuses %s, naming the field', (_, value, path) => {
    expect(() => parseCheckpointJson(value)).toThrow(refusal(path));
  });
});
