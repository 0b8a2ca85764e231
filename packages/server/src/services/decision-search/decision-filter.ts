/**
 * The filter of a decision search, read from the query: entity ids in either form (`ns:agent:x` is
 * `ns:entity:agent:x`), a reason (built-in or a rule pack's) or decision, and a half-open time range [since, until) of ISO 8601 instants.
 * Attacker assumption: every value is caller-controlled; each is validated and bound as a parameter, never
 * interpolated. A principal credential is confined to its own principal (naming another is 403, not an empty page).
 */
import {
  fieldError,
  isReasonCode,
  RULE_REASON_PATTERN,
  tryParseEntityId,
  type Decision,
  type ReasonCode,
} from '@aar/core';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';

export interface DecisionFilterQuery {
  actor_entity_id?: string | undefined;
  principal_entity_id?: string | undefined;
  reason?: string | undefined;
  decision?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export interface DecisionFilter {
  actor_entity_id?: string;
  principal_entity_id?: string;
  reason?: ReasonCode;
  decision?: Decision;
  /** canonical `toISOString()` text, comparable with the stored `created_at` as text */
  since?: string;
  until?: string;
}

const RULE_REASON = new RegExp(RULE_REASON_PATTERN);
const DECISIONS: readonly string[] = ['allow_with_constraints', 'require_approval', 'deny'];
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function readDecisionFilter(query: DecisionFilterQuery, credential: Credential | null): DecisionFilter {
  const filter: DecisionFilter = {};
  if (query.actor_entity_id) filter.actor_entity_id = entity(query.actor_entity_id, '/query/actor_entity_id');
  if (query.principal_entity_id) {
    filter.principal_entity_id = entity(query.principal_entity_id, '/query/principal_entity_id');
  }
  if (credential?.role === 'principal') {
    const own = credential.principal_entity_id ?? '';
    if (filter.principal_entity_id !== undefined) requirePrincipalAccess(credential, filter.principal_entity_id);
    filter.principal_entity_id = own;
  }
  if (query.reason !== undefined) {
    // a built-in reason, or a rule pack's `<pack name>.<code>` (CONTRACT section 19)
    if (!isReasonCode(query.reason) && !RULE_REASON.test(query.reason)) {
      throw fieldError('invalid_request', '/query/reason', 'is not a reason code');
    }
    filter.reason = query.reason as ReasonCode;
  }
  if (query.decision !== undefined) {
    if (!DECISIONS.includes(query.decision)) {
      throw fieldError('invalid_request', '/query/decision', 'is not a decision');
    }
    filter.decision = query.decision as Decision;
  }
  if (query.since !== undefined) filter.since = instant(query.since, '/query/since');
  if (query.until !== undefined) filter.until = instant(query.until, '/query/until');
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw fieldError('invalid_request', '/query/until', 'must be later than `since`');
  }
  return filter;
}

function entity(value: string, path: string): string {
  const parsed = tryParseEntityId(value);
  if (!parsed) throw fieldError('invalid_id', path, 'is not an entity id (`ns:entity:<type>:<id>`)');
  return parsed.id;
}

function instant(value: string, path: string): string {
  const ms = ISO_INSTANT.test(value) ? Date.parse(value) : NaN;
  // the UTC instant must keep a four-digit year: `+010000-…` (9999-12-31T23:00-14:00) sorts below every stored text
  if (!Number.isFinite(ms) || !/^\d{4}-/.test(new Date(ms).toISOString())) {
    throw fieldError('invalid_request', path, 'is not an iso 8601 timestamp with a zone, years 0000-9999 in utc');
  }
  return new Date(ms).toISOString();
}
