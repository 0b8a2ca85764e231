/**
 * canonicalDecisionRecord skips buildDecisionRecord's JSON round trip on plain parts: its text must be exactly the
 * round-tripped record's canonical text in every case, plain or not, so `record_digest` cannot change.
 */
import { describe, expect, it } from 'vitest';
import {
  buildDecisionRecord,
  canonicalDecisionRecord,
  canonicalJson,
  decide,
  type DecisionRecordInput,
} from '../../src/index.ts';
import { eurRootCase } from '../decide/fixtures.ts';

function input(overrides: Partial<DecisionRecordInput> = {}): DecisionRecordInput {
  const { request, snapshot, now } = eurRootCase();
  return {
    policy_decision_id: 'ns:decision:x',
    request,
    snapshot,
    now,
    result: decide(request, snapshot, now),
    engine_version: 'aar-decide/test',
    decision_map: { schema_version: 'm', signature: { algorithm: 'ed25519', key_id: 'k', signature: 's' } },
    ...overrides,
  };
}

const viaRoundTrip = (i: DecisionRecordInput) => canonicalJson(buildDecisionRecord(i));

describe('canonicalDecisionRecord', () => {
  it('is the canonical text of the round-tripped record for a decision of decide', () => {
    const i = input();
    expect(canonicalDecisionRecord(i)).toBe(viaRoundTrip(i));
  });

  it('writes a given map text in place of the map, the same text as without it', () => {
    const i = input();
    expect(canonicalDecisionRecord(i, canonicalJson(i.decision_map))).toBe(viaRoundTrip(i));
    // a record the fast writer leaves to the round trip ignores the text and canonicalises the map itself
    const dated = input({ request: { ...i.request, context: { at: new Date(0) } } });
    expect(canonicalDecisionRecord(dated, canonicalJson(dated.decision_map))).toBe(viaRoundTrip(dated));
  });

  it('drops undefined members as the round trip does', () => {
    const i = input();
    const text = canonicalDecisionRecord({ ...i, request: { ...i.request, context: undefined } });
    expect(text).toBe(viaRoundTrip(i));
    expect(text).not.toContain('"context"');
  });

  it('takes the round trip where it changes something: toJSON, undefined in an array, NaN', () => {
    const { request } = eurRootCase();
    for (const context of [{ at: new Date(0) }, { list: [1, undefined] }, { n: NaN }]) {
      const i = input({ request: { ...request, context } });
      expect(canonicalDecisionRecord(i)).toBe(viaRoundTrip(i));
    }
    expect(canonicalDecisionRecord(input({ request: { ...request, context: { at: new Date(0) } } }))).toContain(
      '"at":"1970-01-01T00:00:00.000Z"',
    );
  });

  it('refuses what the round trip cannot hold, as before', () => {
    const { request } = eurRootCase();
    expect(() => canonicalDecisionRecord(input({ request: { ...request, context: { s: 'a\ud800' } } }))).toThrow(
      expect.objectContaining({ code: 'invalid_json' }),
    );
  });
});
