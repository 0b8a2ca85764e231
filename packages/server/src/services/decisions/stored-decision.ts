/**
 * The two shapes of a stored decision, read as one (migration 0010):
 * - since 0010: `record` holds the decision record's RFC 8785 bytes (record-codec.ts); `request`, `snapshot`,
 *   `result` are empty, and so is `decision_map` unless its signed key order could not be restored (then it holds
 *   the map's text, as the old shape does);
 * - before: `request`, `snapshot`, `result` and `decision_map` hold JSON text and `record` is null.
 * Either way the parts are the same values, so a pack assembled from either is the same pack, and the decision map
 * is served with the same bytes: in the order it was signed (and first answered) in, restored here from the
 * canonical (sorted) order of the record.
 */
import type { DecisionRecordInput } from '@aar/core';
import type { Selectable } from 'kysely';
import type { DecisionsTable } from '../../store/index.ts';
import { cachedPolicySetText } from './policy-set-texts.ts';
import { decodeDecisionRecord, decodeDecisionRecordWithoutPolicySet } from './record-codec.ts';

export type StoredDecisionColumns = Pick<
  Selectable<DecisionsTable>,
  'policy_decision_id' | 'request' | 'snapshot' | 'result' | 'decision_map' | 'record' | 'now' | 'engine_version'
>;

/** The record's members as stored; `text` is the record's exact canonical bytes when the row has them. */
export interface DecisionParts extends DecisionRecordInput {
  decision_map: Record<string, unknown>;
  text?: string;
}

/**
 * Codec 2 records name their policy set text: preload it first (policy-set-texts.ts `preloadPolicySetTexts`), or
 * this throws, as for any record it cannot decode.
 */
export function decisionPartsOf(row: StoredDecisionColumns): DecisionParts {
  if (row.record === null) {
    return {
      policy_decision_id: row.policy_decision_id,
      request: JSON.parse(row.request) as DecisionParts['request'],
      snapshot: JSON.parse(row.snapshot) as DecisionParts['snapshot'],
      now: row.now,
      result: JSON.parse(row.result) as DecisionParts['result'],
      engine_version: row.engine_version,
      decision_map: JSON.parse(row.decision_map) as Record<string, unknown>,
    };
  }
  const text = decodeDecisionRecord(row.record, cachedPolicySetText);
  const record = JSON.parse(text) as DecisionParts;
  return {
    policy_decision_id: record.policy_decision_id,
    request: record.request,
    snapshot: record.snapshot,
    now: record.now,
    result: record.result,
    engine_version: record.engine_version,
    decision_map:
      row.decision_map === ''
        ? inSignedOrder(record.decision_map)
        : (JSON.parse(row.decision_map) as Record<string, unknown>),
    text,
  };
}

/** The decision map as signed: `JSON.stringify` of it gives the bytes the old shape stored and served. */
export function decisionMapOf(row: Pick<StoredDecisionColumns, 'decision_map' | 'record'>): Record<string, unknown> {
  if (row.decision_map !== '') return JSON.parse(row.decision_map) as Record<string, unknown>;
  if (row.record === null) throw new Error('decision row holds neither a map nor a record');
  return inSignedOrder((JSON.parse(decodeDecisionRecordWithoutPolicySet(row.record)) as DecisionParts).decision_map);
}

/** The decision's request alone (no policy set text needed), from either shape. */
export function decisionRequestOf(row: Pick<StoredDecisionColumns, 'request' | 'record'>): DecisionParts['request'] {
  if (row.record === null) return JSON.parse(row.request) as DecisionParts['request'];
  return (JSON.parse(decodeDecisionRecordWithoutPolicySet(row.record)) as DecisionParts).request;
}

// The member order of `ns.decision_map.v1` as core's buildDecisionMap builds it and signDocument appends the
// signature: the order the map was answered in and is served in. The order is not signed (RFC 8785 sorts).
const MAP_KEYS = [
  'schema_version',
  'decision_map_id',
  'policy_decision_id',
  'decision',
  'reason',
  'nodes',
  'audit_ref',
  'evidence_refs',
  'issued_at',
  'signature',
];
const NODE_KEYS = ['type', 'ref', 'short'];
const SIGNATURE_KEYS = ['algorithm', 'key_id', 'signature'];

/**
 * Whether `inSignedOrder` restores this map's own member order from any other order: every member is a known one,
 * in the known order. The writer keeps the map's text when not (a map shape this file does not know yet).
 */
export function hasSignedOrder(value: object): boolean {
  const map = value as Record<string, unknown>;
  if (!inOrder(map, MAP_KEYS)) return false;
  if (map.signature !== undefined && !inOrder(map.signature, SIGNATURE_KEYS)) return false;
  return !Array.isArray(map.nodes) || map.nodes.every((node) => inOrder(node, NODE_KEYS));
}

function inSignedOrder(map: Record<string, unknown>): Record<string, unknown> {
  const out = ordered(map, MAP_KEYS);
  if (Array.isArray(out.nodes)) out.nodes = out.nodes.map((node: unknown) => ordered(node, NODE_KEYS));
  if (out.signature !== undefined) out.signature = ordered(out.signature, SIGNATURE_KEYS);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function inOrder(value: unknown, keys: readonly string[]): boolean {
  if (!isObject(value)) return false;
  const own = Object.keys(value);
  const known = keys.filter((k) => Object.hasOwn(value, k));
  return own.length === known.length && own.every((k, i) => k === known[i]);
}

/** The known keys first, in their order; any others after, as they come. */
function ordered(value: unknown, keys: readonly string[]): Record<string, unknown> {
  if (!isObject(value)) return value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(value, k)) out[k] = value[k];
  for (const k of Object.keys(value)) if (!Object.hasOwn(out, k)) out[k] = value[k];
  return out;
}
