/**
 * What a decision's audit entry commits to (its `record_digest`): the decision record. It holds everything replay
 * needs and everything the evidence pack shows — request, snapshot, the instant `now`, the result, the engine version
 * and the signed decision map — so a pack whose fields re-derive the digest is bound to the write-once chain.
 * INVARIANT: the server digests exactly what its decisions row stores, and a pack is assembled from that row, so
 * the record goes through a JSON round trip here (JSON.stringify drops `undefined` members, as the row does).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { DecisionRequest, DecisionResult, DecisionSnapshot } from '../decide/types.ts';
import { encodeBase64Url } from '../encoding/base64url.ts';
import { canonicalBytes, canonicalJson } from '../json/canonical-json.ts';
import { tryCanonicalJson } from '../json/write-canonical-json.ts';

export const DECISION_RECORD_SCHEMA = 'ns.decision_record.v1';

export interface DecisionRecordInput {
  policy_decision_id: string;
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  /** the instant decide was given, ISO 8601 */
  now: string;
  result: DecisionResult;
  /** which decide produced the result, e.g. `aar-decide/1.0.0` */
  engine_version: string;
  /** the signed decision map (`ns.decision_map.v1` with its `signature`) */
  decision_map: object;
}

export interface DecisionRecord extends DecisionRecordInput {
  schema_version: typeof DECISION_RECORD_SCHEMA;
}

/** Throws (TypeError, AarError) only on values JSON cannot hold; callers on hostile input catch. */
export function buildDecisionRecord(input: DecisionRecordInput): DecisionRecord {
  return JSON.parse(JSON.stringify(recordOf(input))) as DecisionRecord;
}

/**
 * `canonicalJson(buildDecisionRecord(input))`, the text `record_digest` hashes, without the JSON round trip when it
 * would change nothing: on plain JSON parts (objects, arrays, finite numbers, well-formed strings) the round trip only
 * drops undefined members, which canonical JSON omits as well. Other parts (a toJSON method, undefined in an array,
 * NaN) take the round trip, exactly as buildDecisionRecord does.
 * `decisionMapText`: `canonicalJson(input.decision_map)` when the caller has it (signDocumentWithText), written as is
 * instead of canonicalising the map a second time. `knownTexts`: further parts of the record whose canonical text the
 * caller holds (the snapshot's `policy_set`, shared by every decision while the active packs stay the same: tens of
 * KB with 50 rules), each exactly `tryCanonicalJson` of that very object, never changed since.
 */
export function canonicalDecisionRecord(
  input: DecisionRecordInput,
  decisionMapText?: string,
  knownTexts?: ReadonlyMap<object, string>,
): string {
  let known: Map<object, string> | undefined;
  if (decisionMapText !== undefined || knownTexts !== undefined) {
    known = new Map(knownTexts);
    if (decisionMapText !== undefined) known.set(input.decision_map, decisionMapText);
  }
  return tryCanonicalJson(recordOf(input), known) ?? canonicalJson(buildDecisionRecord(input));
}

function recordOf(input: DecisionRecordInput): DecisionRecord {
  return {
    schema_version: DECISION_RECORD_SCHEMA,
    policy_decision_id: input.policy_decision_id,
    request: input.request,
    snapshot: input.snapshot,
    now: input.now,
    result: input.result,
    engine_version: input.engine_version,
    decision_map: input.decision_map,
  };
}

/** `sha-256:` + base64url of SHA-256 over the RFC 8785 bytes: the `record_digest` form of `ns.audit_entry.v1`. */
export function auditRecordDigest(record: unknown): string {
  return `sha-256:${encodeBase64Url(sha256(canonicalBytes(record)))}`;
}
