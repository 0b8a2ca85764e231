import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ENTRY_SCHEMA,
  auditRecordDigest,
  buildDecisionRecord,
  canonicalJson,
  parseAuditEntryText,
} from '../../src/index.ts';
import { eurRootCase } from '../decide/fixtures.ts';

describe('decision record', () => {
  it('digests the RFC 8785 bytes with SHA-256, as the server digests audit records', () => {
    const record = { b: [1, 'two'], a: { z: null, y: 1.5 } };
    const expected = createHash('sha256').update(canonicalJson(record), 'utf8').digest('base64url');
    expect(auditRecordDigest(record)).toBe(`sha-256:${expected}`);
  });

  it('is the stored JSON: undefined members go, as they do in the decisions row', () => {
    const { request, snapshot, now } = eurRootCase();
    const record = buildDecisionRecord({
      policy_decision_id: 'ns:decision:x',
      request: { ...request, context: undefined },
      snapshot,
      now,
      result: {
        decision: 'deny',
        reason: 'merchant_unknown',
        obligations: [],
        stop_conditions: [],
        diagnostics: { checks: [] },
        reservation: undefined,
      },
      engine_version: 'v',
      decision_map: {},
    });
    expect(Object.keys(record)[0]).toBe('schema_version');
    expect('context' in record.request).toBe(false);
    expect('reservation' in record.result).toBe(false);
    expect(auditRecordDigest(record)).toBe(auditRecordDigest(JSON.parse(JSON.stringify(record))));
  });
});

describe('parseAuditEntryText', () => {
  const entry = {
    schema_version: AUDIT_ENTRY_SCHEMA,
    audit_id: 'ns:audit:1',
    index: 4,
    occurred_at: '2026-04-15T10:00:00Z',
    kind: 'ns.entity.created',
    subject_ref: 'ns:commitment:abc',
    record_digest: 'sha-256:abc',
    prev_leaf_hash: '',
  };

  it('reads an entry and refuses anything else', () => {
    expect(parseAuditEntryText(canonicalJson(entry))).toEqual(entry);
    for (const bad of [
      undefined,
      42,
      'not json',
      '[]',
      canonicalJson({ ...entry, schema_version: 'other' }),
      canonicalJson({ ...entry, index: -1 }),
      canonicalJson({ ...entry, index: 1.5 }),
      canonicalJson({ ...entry, kind: 7 }),
      `{"__proto__":${canonicalJson(entry)}}`,
    ]) {
      expect(parseAuditEntryText(bad)).toBeUndefined();
    }
  });
});
