/**
 * The event of a decision, derived from its decision row instead of stored (issue 10: each fact stored once). Every
 * member of an allowed or denied decision's `ns.webhook.v1` envelope restates the decision (commit-decision.ts
 * builds it from the same request, result and ids) but for the event's own id and instant, which the events row
 * keeps. Such a row stores its envelope as '' with no `operation_ref`; readers rebuild it here.
 * INVARIANT: the writer stores '' only after checking that this derivation gives back, byte for byte, the envelope
 * it built (`derivesTo`), so a reader serves the same bytes as if the text had been stored. Events whose envelope
 * names an approval (its expiry is not a decision column) are stored whole.
 * Decision rows are write-once in every column read here, and never deleted, so the rebuilt envelope is the same on
 * every read.
 */
import { moneyToJson, type DecisionRequest } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database, DecisionsTable } from '../../store/index.ts';
import { decisionRequestOf } from '../decisions/stored-decision.ts';
import type { UnsignedEventEnvelope } from './append-event.ts';

/** The decision columns the envelope restates (`request` from the record, in either stored shape). */
export type DecisionForEvent = Pick<
  Selectable<DecisionsTable>,
  | 'policy_decision_id'
  | 'decision'
  | 'reason'
  | 'actor_entity_id'
  | 'principal_entity_id'
  | 'subject'
  | 'leaf_grant_id'
  | 'decision_map_id'
  | 'audit_ref'
  | 'evidence_refs'
> & { request: Pick<DecisionRequest, 'merchant_id' | 'amount'> };

export interface EventRowForDerivation {
  event_id: string;
  event_type: string;
  occurred_at: string;
  subject_ref: string;
}

/** The envelope commit-decision.ts writes for a decision whose event names no approval; same member order. */
export function decisionEnvelope(row: EventRowForDerivation, d: DecisionForEvent): UnsignedEventEnvelope {
  return {
    schema_version: 'ns.webhook.v1',
    event_id: row.event_id,
    event_type: row.event_type,
    occurred_at: row.occurred_at,
    actor_entity_id: d.actor_entity_id,
    principal_entity_id: d.principal_entity_id,
    subject_ref: row.subject_ref,
    reason_code: d.reason,
    data: {
      policy_decision_id: d.policy_decision_id,
      decision: d.decision,
      subject: d.subject,
      merchant_id: d.request.merchant_id ?? null,
      amount: d.request.amount ? moneyToJson(d.request.amount) : null,
      grant_id: d.leaf_grant_id,
      decision_map_ref: d.decision_map_id,
    },
    audit_ref: d.audit_ref,
    evidence_refs: JSON.parse(d.evidence_refs) as string[],
    delivery: { idempotency_key: row.event_id, replayable: true },
  };
}

/** Whether storing '' for this envelope loses nothing: the derivation gives back exactly its JSON text. */
export function derivesTo(envelope: UnsignedEventEnvelope, d: DecisionForEvent): boolean {
  return sameJsonText(decisionEnvelope(envelope, d), envelope);
}

/**
 * `JSON.stringify(a) === JSON.stringify(b)`, without writing either text when both are plain JSON: the same member
 * names in the same order, the same strings, finite numbers, booleans and nulls. Anything whose text needs
 * JSON.stringify's own rules (undefined, toJSON, a class instance, NaN, a function) is compared by the texts.
 */
export function sameJsonText(a: unknown, b: unknown): boolean {
  return plainEqual(a, b, 0) ?? JSON.stringify(a) === JSON.stringify(b);
}

const MAX_PLAIN_DEPTH = 64;

/** true or false when both are plain JSON (the texts agree exactly when the values do), else undefined. */
function plainEqual(a: unknown, b: unknown, depth: number): boolean | undefined {
  const kind = plainKind(a);
  if (kind === undefined || plainKind(b) === undefined || depth > MAX_PLAIN_DEPTH) return undefined;
  if (kind !== plainKind(b)) return false;
  if (kind === 'array') {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return undefined; // may still differ only by holes: leave it to the texts
    let equal = true;
    for (let i = 0; i < x.length; i++) {
      const same = plainEqual(x[i], y[i], depth + 1);
      if (same === undefined) return undefined;
      equal &&= same;
    }
    return equal;
  }
  if (kind === 'object') {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    const keys = Object.keys(x);
    const other = Object.keys(y);
    if (keys.length !== other.length) return undefined; // an undefined member may be all that differs
    let equal = true;
    for (let i = 0; i < keys.length; i++) {
      const same = plainEqual(x[keys[i]!], y[other[i]!], depth + 1);
      if (same === undefined) return undefined;
      equal &&= same && keys[i] === other[i];
    }
    return equal;
  }
  return a === b; // strings, booleans, null, finite numbers (0 and -0 are both written 0)
}

function plainKind(value: unknown): 'array' | 'object' | 'scalar' | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return 'scalar';
    case 'number':
      return Number.isFinite(value) ? 'scalar' : undefined;
    case 'object': {
      if (value === null) return 'scalar';
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      if (Array.isArray(value)) return Object.getPrototypeOf(value) === Array.prototype ? 'array' : undefined;
      const proto: unknown = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null ? 'object' : undefined;
    }
    default:
      return undefined;
  }
}

/** A stored event row whose envelope is derived from its decision. */
export function isDecisionDerived(row: { envelope: string; operation_ref: string | null }): boolean {
  return row.envelope === '' && row.operation_ref === null;
}

/**
 * The envelopes of derived event rows, by event id, from their decisions (one SELECT); an event whose decision is
 * missing maps to undefined (the verifier names it, a feed refuses it).
 * `withoutRequest` (the verifier, which compares every member but those two with the decision anyway): leaves
 * `data.merchant_id` and `data.amount` null instead of reading them from the decision record, which would cost an
 * inflate and a parse per event.
 */
export async function decisionEnvelopes(
  db: Kysely<Database>,
  rows: readonly EventRowForDerivation[],
  options: { withoutRequest?: boolean } = {},
): Promise<Map<string, UnsignedEventEnvelope | undefined>> {
  const out = new Map<string, UnsignedEventEnvelope | undefined>();
  if (rows.length === 0) return out;
  const ids = [...new Set(rows.map((r) => r.subject_ref))];
  const decisions = new Map<string, Selectable<DecisionsTable>>();
  for (let i = 0; i < ids.length; i += 5000) {
    const found = await db
      .selectFrom('decisions')
      .selectAll()
      .where('policy_decision_id', 'in', ids.slice(i, i + 5000))
      .execute();
    for (const d of found) decisions.set(d.policy_decision_id, d);
  }
  for (const row of rows) {
    const d = decisions.get(row.subject_ref);
    if (!d) {
      out.set(row.event_id, undefined);
      continue;
    }
    const request = options.withoutRequest ? {} : decisionRequestOf(d);
    out.set(row.event_id, decisionEnvelope(row, { ...d, request }));
  }
  return out;
}
