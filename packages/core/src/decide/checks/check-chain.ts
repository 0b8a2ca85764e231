/**
 * Step 4: every link of the chain, root to leaf, is active, unexpired and validly delegated, and every
 * intermediary (the actor of a link that delegated further) is active. Reasons are checked in
 * order across the whole chain (any revoked link names `authority_revoked` even when another is expired), so a
 * revocation always reads as a revocation. Attacker assumption: the chain may be reordered, cut, looped, or hold a
 * link wider than its parent; each of those is `delegation_invalid`.
 * aar-decide/1.4.0: a link made from a mandate or allowance (`grant.mandate`) names its own reasons: revoked is
 * `mandate_revoked`, expired `mandate_expired` (the first failing link, root first, names the reason, so a revoked
 * principal grant above a mandate still reads `authority_revoked`), and then a single-use one already used is
 * `allowance_used`. A snapshot without `mandate` decides exactly as before.
 */
import { actionsCoveredBy } from '../action-from-subject.ts';
import { isNonEmptyString, isRecord, ownValue } from '../guards.ts';
import { compareInstants, parseInstant } from '../instant.ts';
import { sameEntity, sameInstrument } from '../same-ref.ts';
import { findMalformedFields, knownScopeFields } from '../scope-fields.ts';
import { findWiderFields, inheritScope } from '../scope-subset.ts';
import type { GrantScope, GrantSnapshot } from '../types.ts';
import { fail, pass, quote, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkChain(ctx: CheckContext): CheckVerdict {
  const { grants } = ctx;
  for (const grant of grants) {
    if (grant.state !== 'active') {
      const mandate = ownValue(grant, 'mandate');
      if (mandate !== undefined) {
        return fail(
          'mandate_revoked',
          `${mandateOf(mandate)} of grant ${quote(grant.grant_id)} is ${quote(grant.state)}`,
        );
      }
      return fail('authority_revoked', `grant ${quote(grant.grant_id)} is ${quote(grant.state)}`);
    }
  }
  // An intermediary (the actor of any link but the leaf) that is not active withdraws everything it delegated.
  for (let i = 0; i < grants.length - 1; i++) {
    const grant = grants[i]!;
    const state = ownValue(grant, 'actor_state');
    if (state !== undefined && state !== 'active') {
      return fail(
        'authority_revoked',
        `intermediary ${quote(grant.actor_entity_id)} of grant ${quote(grant.grant_id)} is ${quote(state)}`,
      );
    }
  }
  for (const grant of grants) {
    const validUntil = ownValue(grant.scope, 'valid_until');
    if (validUntil === undefined) continue;
    const until = parseInstant(validUntil);
    if (!until) return fail('authority_expired', `grant ${quote(grant.grant_id)} valid_until is not a timestamp`);
    if (!ctx.now) return fail('authority_expired', '`now` is not a valid timestamp');
    if (compareInstants(until, ctx.now) <= 0) {
      const mandate = ownValue(grant, 'mandate');
      if (mandate !== undefined) {
        return fail(
          'mandate_expired',
          `${mandateOf(mandate)} of grant ${quote(grant.grant_id)} expired at ${quote(validUntil)}`,
        );
      }
      return fail('authority_expired', `grant ${quote(grant.grant_id)} expired at ${quote(validUntil)}`);
    }
  }
  if (!ctx.now) return fail('authority_expired', '`now` is not a valid timestamp');
  for (const grant of grants) {
    const mandate = ownValue(grant, 'mandate');
    if (ownValue(mandate, 'single_use') === true && ownValue(mandate, 'used') === true) {
      return fail('allowance_used', `${mandateOf(mandate)} of grant ${quote(grant.grant_id)} was used`);
    }
  }
  const scopes: GrantScope[] = [];
  const invalid = findDelegationProblem(grants, scopes);
  if (invalid) return fail('delegation_invalid', invalid);
  ctx.scopes = scopes;
  return pass(grants.length === 1 ? 'direct grant' : `${grants.length}-link chain`);
}

/** Fills `scopes` with every link's own known scope fields, root first, as it goes (complete when it finds none). */
function findDelegationProblem(grants: readonly GrantSnapshot[], scopes: GrantScope[]): string | undefined {
  const seen = new Set<string>();
  let parentEffective: GrantScope | undefined;
  const last = grants.length - 1;
  for (let i = 0; i <= last; i++) {
    const grant = grants[i]!;
    if (!isNonEmptyString(grant.grant_id)) return `link ${i} has no grant id`;
    if (seen.has(grant.grant_id)) return `grant ${quote(grant.grant_id)} appears twice in the chain`;
    seen.add(grant.grant_id);
    const scope: unknown = grant.scope;
    const fields = knownScopeFields(scope);
    const malformed = isRecord(scope) ? findMalformedFields(fields) : ['scope'];
    if (malformed.length > 0) return `grant ${quote(grant.grant_id)} has malformed ${malformed.join(', ')}`;
    if (grant.signature_valid !== true) return `grant ${quote(grant.grant_id)} signature does not verify`;
    const mandate = ownValue(grant, 'mandate');
    if (mandate !== undefined && !isGrantMandate(mandate))
      return `grant ${quote(grant.grant_id)} has malformed mandate`;
    if (i < last && ownValue(grant, 'actor_state') === undefined) {
      return `grant ${quote(grant.grant_id)} does not say whether its actor (an intermediary) is active`;
    }
    // INVARIANT: every known field was checked above
    const own = fields as GrantScope;
    scopes.push(own);
    // not `grants[i - 1]` at the root: reading index -1 is a slow property lookup
    const parent = i > 0 ? grants[i - 1] : undefined;
    if (!parent) {
      if (grant.parent_grant_id !== null && grant.parent_grant_id !== undefined) {
        return `chain does not start at a root grant: ${quote(grant.grant_id)} has a parent`;
      }
    } else {
      if (grant.parent_grant_id !== parent.grant_id)
        return `grant ${quote(grant.grant_id)} is not a child of ${quote(parent.grant_id)}`;
      if (!sameEntity(grant.principal_entity_id, parent.principal_entity_id)) {
        return `grant ${quote(grant.grant_id)} is for another principal than its parent`;
      }
      if (!sameInstrument(grant.resource_id, parent.resource_id)) {
        return `grant ${quote(grant.grant_id)} is for another instrument than its parent`;
      }
      const parentActions = actionsCoveredBy(parent.capability_id);
      if (!actionsCoveredBy(grant.capability_id).every((a) => parentActions.includes(a))) {
        return `grant ${quote(grant.grant_id)} capability is wider than its parent's`;
      }
      const wider = findWiderFields(own, parentEffective ?? {});
      if (wider.length > 0) return `grant ${quote(grant.grant_id)} is wider than its parent: ${wider.join(', ')}`;
    }
    if (grant.depth !== i) return `grant ${quote(grant.grant_id)} depth ${quote(grant.depth)} is not its position ${i}`;
    // The leaf delegates nothing: the scope it passes on and the depth below it are not read.
    if (i === last) break;
    parentEffective = inheritScope(parentEffective, own);
    if (parentEffective.may_delegate !== true) return `grant ${quote(grant.grant_id)} may not be delegated`;
    const depth = own.max_delegation_depth;
    if (depth !== undefined && last - i > depth) {
      return `grant ${quote(grant.grant_id)} allows ${depth} delegation level(s) below it, the chain has ${last - i}`;
    }
  }
  return undefined;
}

/** `mandate \`<id>\``, or `mandate` alone when the binding has no readable id (it is then malformed too). */
function mandateOf(mandate: unknown): string {
  const id = ownValue(mandate, 'mandate_id');
  return typeof id === 'string' ? `mandate ${quote(id)}` : 'mandate';
}

/** aar-decide/1.4.0: `{ mandate_id, format: "ap2" | "acp", digest, single_use, used }`, each of its type. */
function isGrantMandate(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const format = ownValue(value, 'format');
  return (
    isNonEmptyString(ownValue(value, 'mandate_id')) &&
    (format === 'ap2' || format === 'acp') &&
    isNonEmptyString(ownValue(value, 'digest')) &&
    typeof ownValue(value, 'single_use') === 'boolean' &&
    typeof ownValue(value, 'used') === 'boolean'
  );
}
