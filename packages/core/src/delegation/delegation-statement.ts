/**
 * The delegator's statement (`ns.delegation_statement.v1`): what the delegator signs before the service mints any
 * id. It is the `POST /v1/grants` request itself (parent, grantee, scope...) plus a creation time and a nonce, signed
 * with the CONTRACT section 4 scheme under `key_id` = the delegator's entity id. The service keeps it inside the link
 * it signs; an offline verifier then checks that the statement says what the link says (a valid delegator signature
 * over ANOTHER child, or over another parent, must not vouch for this link).
 */
import { isRecord, ownValue } from '../decide/guards.ts';
import { compareInstants, parseInstant } from '../decide/instant.ts';
import { sameEntity, sameInstrument } from '../decide/same-ref.ts';
import { canonicalJson } from '../json/canonical-json.ts';
import { DELEGATION_STATEMENT_SCHEMA, type UnsignedDelegationStatement } from './chain-documents.ts';
import { readWireScope } from './read-wire-scope.ts';

/** The members a statement's `request` may hold: those of a sub-delegation request. */
export const STATEMENT_REQUEST_MEMBERS: readonly string[] = [
  'parent_grant_id',
  'principal_entity_id',
  'actor_entity_id',
  'capability_id',
  'resource_id',
  'scope',
];

export const DELEGATION_NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** How far from its statement's `created` a link may be issued: the service's largest signature window. */
export const STATEMENT_MAX_SKEW_SECONDS = 3600;

export interface BuildDelegationStatementInput {
  delegator_entity_id: string;
  created: string;
  nonce: string;
  /** the request body without `delegator_proof` */
  request: Record<string, unknown>;
}

export function buildDelegationStatement(input: BuildDelegationStatementInput): UnsignedDelegationStatement {
  return {
    schema_version: DELEGATION_STATEMENT_SCHEMA,
    delegator_entity_id: input.delegator_entity_id,
    created: input.created,
    nonce: input.nonce,
    request: input.request,
  };
}

/** The link facts a statement is compared with. */
export interface StatementLinkFacts {
  parent_grant_id: unknown;
  actor_entity_id: unknown;
  principal_entity_id: unknown;
  capability_id: unknown;
  resource_id: unknown;
  scope: unknown;
  issued_at: unknown;
  delegator_entity_id: unknown;
}

/**
 * JSON pointers (into the statement) where it disagrees with `link`, whose parent is `parent`; empty when the
 * statement authorises exactly this link. An omitted `capability_id` means the parent's; an omitted `scope`, `{}`.
 * Attacker assumption: all three are hostile JSON; never throws.
 */
export function findStatementMismatches(
  statement: unknown,
  link: StatementLinkFacts,
  parent: StatementLinkFacts,
): string[] {
  try {
    return mismatches(statement, link, parent);
  } catch {
    return [''];
  }
}

function mismatches(statement: unknown, link: StatementLinkFacts, parent: StatementLinkFacts): string[] {
  if (!isRecord(statement)) return [''];
  const out: string[] = [];
  if (statement.schema_version !== DELEGATION_STATEMENT_SCHEMA) out.push('/schema_version');
  const delegator = ownValue(statement, 'delegator_entity_id');
  if (!sameEntity(delegator, link.delegator_entity_id) || !sameEntity(delegator, parent.actor_entity_id)) {
    out.push('/delegator_entity_id');
  }
  const created = parseInstant(ownValue(statement, 'created'));
  const issued = parseInstant(link.issued_at);
  // The service accepted it within its signature window of its own clock, which also stamped `issued_at`.
  if (!created || !issued || Math.abs(issued.seconds - created.seconds) > STATEMENT_MAX_SKEW_SECONDS) {
    out.push('/created');
  }
  const nonce = ownValue(statement, 'nonce');
  if (typeof nonce !== 'string' || !DELEGATION_NONCE_PATTERN.test(nonce)) out.push('/nonce');
  const request = ownValue(statement, 'request');
  if (!isRecord(request)) return [...out, '/request'];
  for (const key of Object.keys(request)) {
    if (!STATEMENT_REQUEST_MEMBERS.includes(key)) out.push(`/request/${key}`);
  }
  if (ownValue(request, 'parent_grant_id') !== link.parent_grant_id) out.push('/request/parent_grant_id');
  if (!sameEntity(ownValue(request, 'actor_entity_id'), link.actor_entity_id)) out.push('/request/actor_entity_id');
  const principal = ownValue(request, 'principal_entity_id');
  if (principal !== undefined && !sameEntity(principal, link.principal_entity_id)) {
    out.push('/request/principal_entity_id');
  }
  const capability = ownValue(request, 'capability_id') ?? parent.capability_id;
  if (capability !== link.capability_id) out.push('/request/capability_id');
  const resource = ownValue(request, 'resource_id');
  if (resource !== undefined && !sameInstrument(resource, link.resource_id)) out.push('/request/resource_id');
  out.push(...scopeMismatches(ownValue(request, 'scope') ?? {}, link.scope));
  return out;
}

/** Fields where two wire scopes differ in meaning (`10` and `10.0`, `…59Z` and `…59.000Z` are the same). */
function scopeMismatches(signed: unknown, linked: unknown): string[] {
  const a = readWireScope(signed);
  const b = readWireScope(linked);
  if (a.malformed.length > 0 || b.malformed.length > 0) return ['/request/scope'];
  const keys = new Set([...Object.keys(a.scope), ...Object.keys(b.scope)]);
  const out: string[] = [];
  for (const key of keys) {
    const x: unknown = (a.scope as Record<string, unknown>)[key];
    const y: unknown = (b.scope as Record<string, unknown>)[key];
    const same =
      key === 'valid_until'
        ? sameInstant(x, y)
        : x !== undefined && y !== undefined && canonicalJson(x) === canonicalJson(y);
    if (!same) out.push(`/request/scope/${key}`);
  }
  return out.sort();
}

function sameInstant(a: unknown, b: unknown): boolean {
  const x = parseInstant(a);
  const y = parseInstant(b);
  return x !== undefined && y !== undefined && compareInstants(x, y) === 0;
}
