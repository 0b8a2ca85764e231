/**
 * INVARIANT: child ⊆ parent (CONTRACT section 5), judged field by field so that a refusal can name EVERY offending
 * field: lower or equal amounts in the chain's one currency, an earlier or equal `valid_until`, a lower or equal
 * `requires_approval_above`, allowed lists that are subsets, blocked lists that are supersets, the same principal
 * and instrument, a capability and `allowed_actions` that are subsets, and no more delegation levels than remain;
 * aar-decide/1.4.0: a `budget` no larger than the parent's (same currency, any period) and `allowed_merchants` a
 * subset of the parent's.
 * The child's own fields are compared with the parent's EFFECTIVE scope (each ancestor's own fields over its
 * parent's), so an omitted field inherits and never widens. The same function judges a new grant in the server and
 * every link in the offline verifier. Preconditions: every scope is well-formed (decide's form, minor units).
 */
import { actionsCoveredBy } from '../decide/action-from-subject.ts';
import { computeEffectiveScope } from '../decide/effective-scope.ts';
import { compareInstants, parseInstant } from '../decide/instant.ts';
import { sameEntity, sameInstrument } from '../decide/same-ref.ts';
import { ALLOWED_LIST_FIELDS, MONEY_FIELDS } from '../decide/scope-fields.ts';
import { inheritScope } from '../decide/scope-subset.ts';
import type { GrantScope, MinorMoney } from '../decide/types.ts';
import { formatMoney } from '../money/money-format.ts';

/** What a link grants, in decide's form. */
export interface LinkTerms {
  principal_entity_id: string;
  capability_id: string;
  resource_id: string;
  /** the link's own scope */
  scope: GrantScope;
}

export interface AttenuationViolation {
  /** JSON pointer into the grant: `/scope/max_daily_amount`, `/scope/max_daily_amount/currency`, `/capability_id` */
  path: string;
  message: string;
}

/** The scope a link holds: its own fields over its ancestors' (root first). */
export function effectiveScopeOf(scopes: readonly GrantScope[]): GrantScope {
  return scopes.reduce<GrantScope>((effective, own) => inheritScope(effective, own), {});
}

/** Every way `child` is wider than its parent, the last of `ancestors` (root first, non-empty). */
export function findAttenuationViolations(child: LinkTerms, ancestors: readonly LinkTerms[]): AttenuationViolation[] {
  const parent = ancestors[ancestors.length - 1];
  if (!parent) return [{ path: '/parent_grant_id', message: 'a delegated grant needs a parent' }];
  const out: AttenuationViolation[] = [];
  if (!sameEntity(child.principal_entity_id, parent.principal_entity_id)) {
    out.push({
      path: '/principal_entity_id',
      message: `must be the parent's principal \`${parent.principal_entity_id}\``,
    });
  }
  if (!sameInstrument(child.resource_id, parent.resource_id)) {
    out.push({ path: '/resource_id', message: `must be the parent's card token \`${parent.resource_id}\`` });
  }
  const parentActions = actionsCoveredBy(parent.capability_id);
  const childActions = actionsCoveredBy(child.capability_id);
  if (childActions.length === 0 || !childActions.every((a) => parentActions.includes(a))) {
    out.push({ path: '/capability_id', message: `must be \`${parent.capability_id}\` or one of its sub-capabilities` });
  }
  const scopes = ancestors.map((a) => a.scope);
  out.push(...findScopeViolations(child.scope, effectiveScopeOf(scopes), computeEffectiveScope(scopes)));
  return out;
}

function findScopeViolations(own: GrantScope, parent: GrantScope, intersection: GrantScope): AttenuationViolation[] {
  const out: AttenuationViolation[] = [];
  const currency =
    MONEY_FIELDS.map((key) => parent[key]?.currency).find((c) => c !== undefined) ?? parent.budget?.currency;
  for (const key of MONEY_FIELDS) {
    const c = own[key];
    if (!c) continue;
    const p = parent[key];
    if (currency !== undefined && c.currency !== currency) {
      out.push({
        path: `/scope/${key}/currency`,
        message: `must be \`${currency}\`, the currency of the parent's limits`,
      });
    } else if (p && c.minor > p.minor) {
      out.push({ path: `/scope/${key}`, message: `must be at most ${money(p)}, the parent's` });
    }
  }
  const budget = own.budget;
  if (budget && currency !== undefined && budget.currency !== currency) {
    out.push({
      path: '/scope/budget/currency',
      message: `must be \`${currency}\`, the currency of the parent's limits`,
    });
  } else if (budget && parent.budget && budget.minor > parent.budget.minor) {
    out.push({
      path: '/scope/budget',
      message: `must be at most ${money(parent.budget)}, the parent's budget (per ${parent.budget.period})`,
    });
  }
  if (own.valid_until !== undefined && parent.valid_until !== undefined) {
    const c = parseInstant(own.valid_until);
    const p = parseInstant(parent.valid_until);
    if (c && p && compareInstants(c, p) > 0) {
      out.push({ path: '/scope/valid_until', message: `must be at or before \`${parent.valid_until}\`, the parent's` });
    }
  }
  for (const key of ALLOWED_LIST_FIELDS) {
    const c: readonly string[] | undefined = own[key];
    const p: readonly string[] | undefined = parent[key];
    const extra = c && p ? c.filter((item) => !p.includes(item)) : [];
    if (extra.length > 0) {
      out.push({ path: `/scope/${key}`, message: `may not add ${extra.map((e) => `\`${e}\``).join(', ')}` });
    }
  }
  const cb = own.blocked_merchant_categories;
  const pb = parent.blocked_merchant_categories;
  const unblocked = cb && pb ? pb.filter((item) => !cb.includes(item)) : [];
  if (unblocked.length > 0) {
    out.push({
      path: '/scope/blocked_merchant_categories',
      message: `must keep blocking ${unblocked.map((e) => `\`${e}\``).join(', ')}`,
    });
  }
  if (own.may_delegate === true && parent.may_delegate === false) {
    out.push({ path: '/scope/may_delegate', message: 'the parent may not be delegated further' });
  }
  const remaining = intersection.max_delegation_depth;
  const depth = own.max_delegation_depth;
  // The child sits one level below the parent: it may allow at most one level fewer than remain below the parent.
  if (depth !== undefined && remaining !== undefined && depth > Math.max(0, remaining - 1)) {
    out.push({
      path: '/scope/max_delegation_depth',
      message: `must be at most ${Math.max(0, remaining - 1)}: that many levels remain below this grant`,
    });
  }
  return out;
}

/**
 * Why no grant may be delegated below the last of `ancestors` (root first), or undefined when one may: the
 * parent's effective scope must say `may_delegate: true`, and no ancestor's `max_delegation_depth` may be exceeded
 * by the new level. `index` is the ancestor whose limit is reached.
 */
export function findDelegationLimit(
  ancestors: readonly GrantScope[],
): { code: 'not_delegable' } | { code: 'too_deep'; index: number; limit: number } | undefined {
  if (effectiveScopeOf(ancestors).may_delegate !== true) return { code: 'not_delegable' };
  const childDepth = ancestors.length;
  for (const [index, scope] of ancestors.entries()) {
    const limit = scope.max_delegation_depth;
    if (limit !== undefined && childDepth - index > limit) return { code: 'too_deep', index, limit };
  }
  return undefined;
}

function money(m: MinorMoney): string {
  try {
    return formatMoney(m);
  } catch {
    return `${m.minor} minor units of ${m.currency}`;
  }
}
