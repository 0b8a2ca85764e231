/**
 * The stored shape's building blocks: the record codec is lossless and fails closed, its dictionary never changes
 * (rows compressed with it must inflate for as long as they are kept), a decision map's signed member order is
 * restored from any order, and the native-SHA-256 compact range agrees with core's hash for hash.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { canonicalJson, CompactRange, encodeBase64 } from '@aar/core';
import { decodeDecisionRecord, encodeDecisionRecord } from '../../src/services/decisions/record-codec.ts';
import { RECORD_DICTIONARY_1 } from '../../src/services/decisions/record-dictionary-1.ts';
import { decisionMapOf, hasSignedOrder } from '../../src/services/decisions/stored-decision.ts';
import { leafHashOf, NodeRange } from '../../src/audit/verify/node-range.ts';

describe('record codec 1', () => {
  it('gives back the exact bytes, non-ASCII included', () => {
    const text = '{"a":"é€😀","b":[1,2,3],"schema_version":"ns.decision_record.v1"}';
    const blob = encodeDecisionRecord(text);
    expect(blob[0]).toBe(1);
    expect(decodeDecisionRecord(blob)).toBe(text);
    expect(decodeDecisionRecord(new Uint8Array(blob))).toBe(text);
  });

  it('refuses an unknown codec, a corrupt stream and a decompression bomb', () => {
    const blob = encodeDecisionRecord('{"x":1}');
    expect(() => decodeDecisionRecord(Buffer.concat([Buffer.of(2), blob.subarray(1)]))).toThrow(/codec/);
    expect(() => decodeDecisionRecord(Buffer.of(1, 0xff, 0xff, 0xff))).toThrow();
    const bomb = Buffer.concat([Buffer.of(1), deflateRawSync(Buffer.alloc(8 * 1024 * 1024, 0x20))]);
    expect(() => decodeDecisionRecord(bomb)).toThrow();
  });

  it('keeps its dictionary byte for byte', () => {
    expect(createHash('sha256').update(RECORD_DICTIONARY_1, 'utf8').digest('hex')).toBe(DICTIONARY_1_SHA256);
  });
});

const DICTIONARY_1_SHA256 = '755a6d6c396217e71dddb5453148c75dd1a2c6c43e5f6531d5a47909e30f3f3b';

describe('decision map order', () => {
  const signed = {
    schema_version: 'ns.decision_map.v1',
    decision_map_id: 'ns:decision_map:1',
    policy_decision_id: 'ns:decision:1',
    decision: 'deny',
    reason: 'merchant_unknown',
    nodes: [{ type: 'principal', ref: 'ns:entity:person:a', short: 'principal active' }],
    audit_ref: 'ns:audit:1',
    evidence_refs: ['ns:evidence-pack:1'],
    issued_at: '2026-01-01T00:00:00.000Z',
    signature: { algorithm: 'ed25519', key_id: 'k', signature: 's' },
  };

  it('restores the signed order from the sorted order of a record', () => {
    expect(hasSignedOrder(signed)).toBe(true);
    const sorted = JSON.parse(canonicalJson(signed));
    expect(JSON.stringify(sorted)).not.toBe(JSON.stringify(signed));
    const record = { decision_map: sorted };
    const row = { decision_map: '', record: encodeDecisionRecord(JSON.stringify(record)) };
    expect(JSON.stringify(decisionMapOf(row))).toBe(JSON.stringify(signed));
  });

  it('says when a map has members it cannot place (the writer then keeps the map text)', () => {
    expect(hasSignedOrder({ ...signed, extra: 1 })).toBe(false);
    expect(hasSignedOrder({ decision_map_id: 'x', schema_version: 'y' })).toBe(false);
    const text = JSON.stringify({ ...signed, extra: 1 });
    expect(JSON.stringify(decisionMapOf({ decision_map: text, record: encodeDecisionRecord('{}') }))).toBe(text);
  });
});

describe('NodeRange', () => {
  it('agrees with core CompactRange on every node and root', () => {
    const core = new CompactRange();
    const native = NodeRange.empty();
    const seen: string[] = [];
    const coreSeen: string[] = [];
    for (let i = 0; i < 77; i++) {
      const leaf = leafHashOf(`entry ${i}`);
      native.append(leaf, (level, index, hash) => seen.push(`${level}:${index}:${hash.toString('base64')}`));
      core.append(new Uint8Array(leaf), (range, hash) => {
        const width = range.end - range.begin;
        coreSeen.push(`${Math.log2(width)}:${range.begin / width}:${encodeBase64(hash)}`);
      });
      expect(native.root().toString('base64')).toBe(encodeBase64(core.root()));
    }
    expect(seen).toEqual(coreSeen);
    expect(NodeRange.fromJSON(core.toJSON()).root().toString('base64')).toBe(encodeBase64(core.root()));
    expect(native.toJSON()).toEqual(core.toJSON());
  });
});
