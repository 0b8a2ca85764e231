import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sharedVectorPath } from '../../../../vectors/lib/shared-vectors.ts';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
} from '../../src/merkle/index.ts';
import { decodeBase64 } from '../../src/merkle/base64.ts';
import { refVerifyConsistency, refVerifyInclusion } from './reference.ts';

// transparency-dev/merkle testdata, read from ../shared/vectors/merkle (never copied into the project)
const ROOT = sharedVectorPath('merkle');

// The leaf inputs of the transparency-dev test trees (../shared/vectors/README.md).
const INPUTS = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'];
const LEAVES = INPUTS.map((hex) => leafHash(Uint8Array.from(hex.match(/../g) ?? [], (byte) => parseInt(byte, 16))));

interface InclusionVector {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

interface ConsistencyVector {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.json') ? [path] : [];
    });
}

function load<T>(area: string): [string, T][] {
  if (ROOT === undefined) return [];
  return walk(join(ROOT, area)).map((path) => [relative(ROOT, path), JSON.parse(readFileSync(path, 'utf8')) as T]);
}

function bytes(text: string): Uint8Array {
  const decoded = decodeBase64(text);
  if (decoded === undefined) throw new Error(`vector holds invalid base64 \`${text}\``);
  return decoded;
}

const inclusion = load<InclusionVector>('inclusion');
const consistency = load<ConsistencyVector>('consistency');

describe.skipIf(!ROOT)('transparency-dev vectors', () => {
  it('are all there', () => {
    expect(inclusion.length + consistency.length).toBe(196);
    expect(inclusion.filter(([, v]) => !v.wantErr).length).toBeGreaterThan(5);
    expect(consistency.filter(([, v]) => !v.wantErr).length).toBeGreaterThan(5);
  });

  it.each(inclusion)('inclusion %s', (_, v) => {
    const proof = (v.proof ?? []).map(bytes);
    const result = verifyInclusion(bytes(v.leafHash), v.leafIdx, v.treeSize, proof, bytes(v.root));
    expect(result.valid).toBe(!v.wantErr);
    expect(refVerifyInclusion(bytes(v.leafHash), v.leafIdx, v.treeSize, proof, bytes(v.root))).toBe(!v.wantErr);
  });

  it.each(consistency)('consistency %s', (_, v) => {
    const proof = (v.proof ?? []).map(bytes);
    const result = verifyConsistency(v.size1, v.size2, proof, bytes(v.root1), bytes(v.root2));
    expect(result.valid).toBe(!v.wantErr);
    expect(refVerifyConsistency(v.size1, v.size2, proof, bytes(v.root1), bytes(v.root2))).toBe(!v.wantErr);
  });

  it('happy paths are the proofs this code generates over the vectors tree', () => {
    let matched = 0;
    for (const [, v] of inclusion) {
      if (v.wantErr || v.treeSize > LEAVES.length) continue;
      const leaves = LEAVES.slice(0, v.treeSize);
      if (!equal(rootFromLeafHashes(leaves), bytes(v.root))) continue;
      expect(leaves[v.leafIdx]).toEqual(bytes(v.leafHash));
      expect(inclusionProof(leaves, v.leafIdx, v.treeSize)).toEqual((v.proof ?? []).map(bytes));
      matched++;
    }
    for (const [, v] of consistency) {
      if (v.wantErr || v.size2 > LEAVES.length || v.size1 === 0) continue;
      const leaves = LEAVES.slice(0, v.size2);
      if (!equal(rootFromLeafHashes(leaves), bytes(v.root2))) continue;
      expect(rootFromLeafHashes(leaves.slice(0, v.size1))).toEqual(bytes(v.root1));
      expect(consistencyProof(leaves, v.size1, v.size2)).toEqual((v.proof ?? []).map(bytes));
      matched++;
    }
    expect(matched).toBeGreaterThanOrEqual(8);
  });
});

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
