/**
 * `POST /v1/search`'s body, read and confined to what the caller may see (docs/search.md "Who sees what").
 * - A `principal` credential searches its own principal's decisions, evidence packs and memory records only: a
 *   filter naming another principal is 403 (not an empty answer, as GET /v1/decisions).
 * - `agent_entity_id` (the agent the search is made for) confines decisions, evidence packs and memory records to
 *   that agent's own; listings are public to every holder of `search.read`.
 * - `memory_records` also needs what reading memory needs: the `memory` capability enabled and the `memory.read`
 *   scope (403 `capability_not_enabled` / `scope_missing`), so search never widens a token's reach.
 * Attacker assumption: every value is caller text; each is validated here and only ever reaches SQL as a bound
 * parameter (text patterns with LIKE's wildcards escaped).
 */
import { AarError, fieldError, isReasonCode, RULE_REASON_PATTERN, tryParseEntityId, type Decision } from '@aar/core';
import type { AppConfig } from '../../config.ts';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { assertScope } from '../../http/token-scopes.ts';

export const SEARCH_KINDS = ['decisions', 'evidence_packs', 'memory_records', 'listings'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];
export const MEMORY_CLASSIFICATIONS = ['public', 'internal', 'confidential', 'restricted'] as const;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const MAX_QUERY_LENGTH = 200;

export interface SearchBody {
  query?: string;
  kinds: SearchKind[];
  filters?: {
    principal_entity_id?: string;
    actor_entity_id?: string;
    decision?: string;
    reason?: string;
    since?: string;
    until?: string;
    classification?: string;
  };
  agent_entity_id?: string;
  limit?: number;
}

/** What each kind's search reads: validated, canonical, confined. */
export interface SearchPlan {
  kinds: SearchKind[];
  /** lower-cased LIKE pattern of `query` (wildcards escaped), or undefined */
  pattern?: string;
  /** the confinement applied: a principal credential's own principal, else the filter's */
  principal_entity_id?: string;
  /** the agent the search is made for, else the filter's actor */
  actor_entity_id?: string;
  agent_entity_id?: string;
  decision?: Decision;
  reason?: string;
  since?: string;
  until?: string;
  classification?: (typeof MEMORY_CLASSIFICATIONS)[number];
  /** per kind */
  limit: number;
}

const RULE_REASON = new RegExp(RULE_REASON_PATTERN);
const DECISIONS: readonly string[] = ['allow_with_constraints', 'require_approval', 'deny'];
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function planSearch(body: SearchBody, credential: Credential, config: AppConfig): SearchPlan {
  const f = body.filters ?? {};
  const plan: SearchPlan = { kinds: [...body.kinds], limit: body.limit ?? DEFAULT_LIMIT };
  // memory through search is still memory: it needs the `memory` capability and the `memory.read` scope as well
  if (plan.kinds.includes('memory_records')) assertScope(credential, 'memory.read', config);
  if (body.query !== undefined) {
    plan.pattern = `%${body.query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  if (f.principal_entity_id !== undefined) {
    plan.principal_entity_id = entity(f.principal_entity_id, '/filters/principal_entity_id');
  }
  if (credential.role === 'principal') {
    if (!credential.principal_entity_id) throw new AarError('forbidden', 'this principal credential is not bound');
    if (plan.principal_entity_id !== undefined) requirePrincipalAccess(credential, plan.principal_entity_id);
    plan.principal_entity_id = credential.principal_entity_id;
  }
  if (f.actor_entity_id !== undefined) plan.actor_entity_id = entity(f.actor_entity_id, '/filters/actor_entity_id');
  if (body.agent_entity_id !== undefined) {
    const agent = entity(body.agent_entity_id, '/agent_entity_id', 'agent');
    if (plan.actor_entity_id !== undefined && plan.actor_entity_id !== agent) {
      throw fieldError('invalid_request', '/filters/actor_entity_id', 'differs from `agent_entity_id`');
    }
    plan.agent_entity_id = agent;
    plan.actor_entity_id = agent;
  }
  if (f.reason !== undefined) {
    if (!isReasonCode(f.reason) && !RULE_REASON.test(f.reason)) {
      throw fieldError('invalid_request', '/filters/reason', 'is not a reason code');
    }
    plan.reason = f.reason;
  }
  if (f.decision !== undefined) {
    if (!DECISIONS.includes(f.decision)) throw fieldError('invalid_request', '/filters/decision', 'is not a decision');
    plan.decision = f.decision as Decision;
  }
  if (f.since !== undefined) plan.since = instant(f.since, '/filters/since');
  if (f.until !== undefined) plan.until = instant(f.until, '/filters/until');
  if (plan.since !== undefined && plan.until !== undefined && plan.since >= plan.until) {
    throw fieldError('invalid_request', '/filters/until', 'must be later than `since`');
  }
  if (f.classification !== undefined) {
    if (!(MEMORY_CLASSIFICATIONS as readonly string[]).includes(f.classification)) {
      throw fieldError(
        'invalid_request',
        '/filters/classification',
        `must be one of ${MEMORY_CLASSIFICATIONS.join(', ')}`,
      );
    }
    plan.classification = f.classification as SearchPlan['classification'];
  }
  return plan;
}

function entity(value: string, path: string, type?: string): string {
  const parsed = tryParseEntityId(value);
  if (!parsed || (type !== undefined && parsed.type !== type)) {
    throw fieldError('invalid_id', path, `is not ${type ? `an ${type}` : 'an entity'} id (\`ns:entity:<type>:<id>\`)`);
  }
  return parsed.id;
}

function instant(value: string, path: string): string {
  const ms = ISO_INSTANT.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms) || !/^\d{4}-/.test(new Date(ms).toISOString())) {
    throw fieldError('invalid_request', path, 'is not an iso 8601 timestamp with a zone, years 0000-9999 in utc');
  }
  return new Date(ms).toISOString();
}
