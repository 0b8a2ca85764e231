/**
 * Where the decision the server recorded (GET /v1/decisions/{id}) read other facts than the vector gave decide.
 * Compared after normalising only what the server may legitimately spell or establish differently:
 * - ids in their canonical form (`ns:human:alice` is `ns:entity:person:alice`), timestamps as instants;
 * - the attested agent metadata (aar-decide/1.5.0) by its fields: its id, digest and key are the seeding run's;
 * - payload facts after the first failing one: the server stops establishing them (an unsigned request has no
 *   `created`, a broken or stale signature registers no nonce), and decide never reads them.
 */
import {
  cardTokenId,
  tryParseCardTokenRef,
  tryParseEntityId,
  type DecisionRequest,
  type DecisionSnapshot,
  type GrantSnapshot,
  type PayloadSnapshot,
} from '@aar/core';
import type { DecisionVector } from './decision-vectors.ts';

export interface RecordedDecision {
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  now: string;
}

export function recordedDifferences(vector: DecisionVector, recorded: RecordedDecision): string[] {
  const { request, snapshot, now } = vector.input;
  const nowSeconds = Date.parse(now) / 1000;
  return [
    ...jsonDifferences(canonicalRequest(request), canonicalRequest(recorded.request), '/request'),
    ...jsonDifferences(
      comparableSnapshot(snapshot, nowSeconds),
      comparableSnapshot(recorded.snapshot, nowSeconds),
      '/snapshot',
    ),
    ...(Date.parse(recorded.now) === Date.parse(now) ? [] : [`/now: ${now} != ${recorded.now}`]),
  ];
}

function canonicalRequest(request: DecisionRequest): DecisionRequest {
  const out = { ...request };
  out.actor_entity_id = tryParseEntityId(request.actor_entity_id)?.id ?? request.actor_entity_id;
  out.principal_entity_id = tryParseEntityId(request.principal_entity_id)?.id ?? request.principal_entity_id;
  if (request.instrument_id !== undefined) {
    const local = tryParseCardTokenRef(request.instrument_id);
    out.instrument_id = local === undefined ? request.instrument_id : cardTokenId(local);
  }
  return out;
}

function comparableSnapshot(snapshot: DecisionSnapshot, nowSeconds: number): unknown {
  return {
    ...snapshot,
    payload: establishedPayload(snapshot.payload, nowSeconds),
    grants: snapshot.grants.map(comparableGrant),
    ...(snapshot.alternatives
      ? { alternatives: snapshot.alternatives.map((chain) => chain.map(comparableGrant)) }
      : {}),
    approval: snapshot.approval && { ...snapshot.approval, expires_at: instant(snapshot.approval.expires_at) },
    // aar-decide/1.5.0: the attested fields; the attestation's id, digest and agent key are the run's own
    ...(snapshot.agent_metadata
      ? {
          agent_metadata: {
            model: snapshot.agent_metadata.model,
            software_version: snapshot.agent_metadata.software_version,
            operator: snapshot.agent_metadata.operator,
          },
        }
      : {}),
  };
}

function comparableGrant(g: GrantSnapshot): GrantSnapshot {
  return {
    ...g,
    scope: g.scope.valid_until === undefined ? g.scope : { ...g.scope, valid_until: instant(g.scope.valid_until) },
  };
}

function establishedPayload(p: PayloadSnapshot, nowSeconds: number): Partial<PayloadSnapshot> {
  const out: Partial<PayloadSnapshot> = { required: p.required, window_seconds: p.window_seconds, present: p.present };
  if (!p.present) return out;
  out.signature_valid = p.signature_valid;
  if (!p.signature_valid) return out;
  out.created = p.created;
  if (p.created === undefined || Math.abs(nowSeconds - p.created) > p.window_seconds) return out;
  out.nonce_fresh = p.nonce_fresh;
  return out;
}

function instant(text: string): string {
  const at = Date.parse(text);
  return Number.isNaN(at) ? text : new Date(at).toISOString();
}

/** Paths at which two JSON values differ, with both values. */
function jsonDifferences(want: unknown, got: unknown, path = ''): string[] {
  if (isObject(want) && isObject(got)) {
    const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])].sort();
    return keys.flatMap((k) => jsonDifferences(want[k], got[k], `${path}/${k}`));
  }
  if (Array.isArray(want) && Array.isArray(got) && want.length === got.length) {
    return want.flatMap((w, i) => jsonDifferences(w, got[i], `${path}/${i}`));
  }
  return JSON.stringify(want) === JSON.stringify(got)
    ? []
    : [`${path}: ${JSON.stringify(want)} != ${JSON.stringify(got)}`];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
