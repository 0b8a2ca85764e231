/**
 * What one path conveys now (hand-written, over core's own scope code): whether it can be used, and its effective
 * limits. Limits are never recomputed here: the effective scope is core computeEffectiveScope over the chain's own
 * scopes (the same intersection decide's checks enforce link by link), and today's remaining amount is, per link,
 * its own `max_daily_amount` less its own spend counter, exactly the sum check-amount compares (spent + amount <=
 * limit), taken at its minimum over the chain.
 * The blocking reason is decide's reason code for the first failing fact in CONTRACT section 3 order (entities, then
 * the chain: revoked, intermediary, expired, used). Attacker assumption: rows may be edited; anything missing or
 * malformed blocks the path (fail closed), never unblocks it.
 */
import { actionsCoveredBy } from '../decide/action-from-subject.ts';
import { computeEffectiveScope } from '../decide/effective-scope.ts';
import { compareInstants, parseInstant, type Instant } from '../decide/instant.ts';
import type { MinorMoney, PurchaseAction } from '../decide/types.ts';
import type { AuthorityGraph } from './authority-graph.ts';
import type { EffectiveLimits, GraphGrant, PathBlock, PathLink } from './types.ts';

/** `chain`: root first, as chainOf gives it (undefined: an ancestor is missing). `now`: ISO 8601 instant. */
export function pathLimits(
  graph: AuthorityGraph,
  chain: readonly GraphGrant[] | undefined,
  now: string,
): EffectiveLimits {
  if (!chain || chain.length === 0) return limitsOf(graph, [], 'delegation_invalid');
  return limitsOf(graph, chain, blockOf(graph, chain, parseInstant(now)));
}

/** Each link of the chain with its own daily limit and today's counter. */
export function pathLinks(graph: AuthorityGraph, chain: readonly GraphGrant[]): PathLink[] {
  return chain.map((grant) => ({
    grant_id: grant.grant_id,
    depth: grant.depth,
    actor_entity_id: grant.actor_entity_id,
    state: grant.state,
    mandate_id: grant.mandate_id,
    max_daily_amount: copy(grant.scope.max_daily_amount) ?? null,
    spent_today: spentOf(graph, grant) ?? null,
  }));
}

/** A grant's own spend counter today, in its limits' currency; zero when it has none. */
export function spentOf(graph: AuthorityGraph, grant: GraphGrant): MinorMoney | undefined {
  const counter = graph.spentToday.get(grant.grant_id);
  if (counter) return { minor: counter.minor, currency: counter.currency };
  const currency = currencyOf(grant);
  return currency === undefined ? undefined : { minor: 0, currency };
}

function blockOf(graph: AuthorityGraph, chain: readonly GraphGrant[], now: Instant | undefined): PathBlock | null {
  const root = chain[0]!;
  const leaf = chain[chain.length - 1]!;
  if (graph.entities.get(root.principal_entity_id)?.state !== 'active') return 'principal_inactive';
  if (graph.entities.get(leaf.actor_entity_id)?.state !== 'active') return 'actor_inactive';
  const token = graph.cardTokens.get(leaf.card_token_id);
  if (token?.state !== 'active') return 'instrument_inactive';
  if (token.principal_entity_id !== root.principal_entity_id) return 'instrument_not_bound';
  if (root.parent_grant_id !== null) return 'delegation_invalid';
  for (const [i, grant] of chain.entries()) {
    if (
      i > 0 &&
      (grant.parent_grant_id !== chain[i - 1]!.grant_id || grant.principal_entity_id !== root.principal_entity_id)
    ) {
      return 'delegation_invalid';
    }
    if (grant.state !== 'active') return grant.mandate_id !== null ? 'mandate_revoked' : 'authority_revoked';
  }
  // an intermediary (the actor of every link but the leaf) that is not active withdraws what it delegated
  for (let i = 0; i < chain.length - 1; i++) {
    if (graph.entities.get(chain[i]!.actor_entity_id)?.state !== 'active') return 'authority_revoked';
  }
  if (!now) return 'authority_expired';
  for (const grant of chain) {
    const mandate = grant.mandate_id === null ? undefined : graph.mandates.get(grant.mandate_id);
    if (expiredAt(grant.scope.valid_until, now))
      return mandate || grant.mandate_id ? 'mandate_expired' : 'authority_expired';
    if (mandate?.expires_at && expiredAt(mandate.expires_at, now)) return 'mandate_expired';
  }
  for (const grant of chain) {
    if (grant.mandate_id === null) continue;
    const mandate = graph.mandates.get(grant.mandate_id);
    if (!mandate) return 'mandate_revoked';
    if (mandate.single_use && mandate.used) return 'allowance_used';
  }
  return null;
}

function limitsOf(graph: AuthorityGraph, chain: readonly GraphGrant[], block: PathBlock | null): EffectiveLimits {
  const effective = computeEffectiveScope(chain.map((grant) => grant.scope));
  let actions: readonly PurchaseAction[] = chain.length > 0 ? actionsCoveredBy(chain[0]!.capability_id) : [];
  for (const grant of chain) {
    const covered = actionsCoveredBy(grant.capability_id);
    actions = actions.filter((a) => covered.includes(a));
  }
  if (effective.allowed_actions) actions = actions.filter((a) => effective.allowed_actions!.includes(a));
  const remaining = remainingToday(graph, chain);
  const perPurchase = effective.max_amount_per_purchase;
  let now: MinorMoney | undefined = perPurchase;
  if (remaining && (!now || remaining.minor < now.minor)) now = remaining;
  return {
    usable: block === null,
    blocked_by: block,
    actions: [...actions],
    max_amount_per_purchase: perPurchase ?? null,
    max_daily_amount: effective.max_daily_amount ?? null,
    remaining_today: remaining ?? null,
    max_purchase_now: copy(now) ?? null,
    requires_approval_above: effective.requires_approval_above ?? null,
    budget: effective.budget ?? null,
    valid_until: effective.valid_until ?? null,
    allowed_merchant_categories: effective.allowed_merchant_categories ?? null,
    blocked_merchant_categories: effective.blocked_merchant_categories ?? null,
    allowed_jurisdictions: effective.allowed_jurisdictions ?? null,
    allowed_merchants: effective.allowed_merchants ?? null,
    may_delegate: effective.may_delegate === true,
    max_delegation_depth: effective.max_delegation_depth ?? null,
  };
}

/**
 * min over links with an own max_daily_amount of (limit - that link's counter today), floored at 0. A counter in
 * another currency than its limit (never written by authorize) leaves nothing (check-amount denies it too).
 */
function remainingToday(graph: AuthorityGraph, chain: readonly GraphGrant[]): MinorMoney | undefined {
  let lowest: MinorMoney | undefined;
  for (const grant of chain) {
    const limit = grant.scope.max_daily_amount;
    if (!limit) continue;
    const left = Math.max(0, limit.minor - spentMinor(graph, grant, limit.currency));
    if (!lowest || left < lowest.minor) lowest = { minor: left, currency: limit.currency };
  }
  return lowest;
}

function spentMinor(graph: AuthorityGraph, grant: GraphGrant, currency: string): number {
  const counter = graph.spentToday.get(grant.grant_id);
  if (!counter || counter.minor === 0) return 0;
  return counter.currency === currency && Number.isSafeInteger(counter.minor) ? counter.minor : Number.MAX_SAFE_INTEGER;
}

function expiredAt(text: string | undefined, now: Instant): boolean {
  if (text === undefined) return false;
  const at = parseInstant(text);
  return !at || compareInstants(at, now) <= 0;
}

function currencyOf(grant: GraphGrant): string | undefined {
  const s = grant.scope;
  return (s.max_daily_amount ?? s.max_amount_per_purchase ?? s.requires_approval_above ?? s.budget)?.currency;
}

function copy(money: MinorMoney | undefined): MinorMoney | undefined {
  return money && { minor: money.minor, currency: money.currency };
}
