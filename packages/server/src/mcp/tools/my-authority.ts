/**
 * `my_authority`: what this agent may do for its person with its card, as the service sees it now. It asks the one
 * question that moves no money, `purchase.search` (signed, decided and recorded like any other: asking about one's
 * authority is itself on the record), then reads that decision's snapshot: the chain of grants that decided, root
 * first, each link's scope and today's spend. The effective scope is core's intersection of the chain
 * (computeEffectiveScope, the function decide uses); the remaining daily amount is the smallest headroom of any link.
 * Amounts are turned from minor units into major units by core's exact conversion, never by floating arithmetic.
 */
import { computeEffectiveScope, moneyToJson, type GrantScope } from '@aar/core';
import type { AgentSession } from '../agent-session.ts';
import { reasonInWords } from '../plain-words.ts';
import type { JsonSchema, ToolDefinition } from '../tool-kit.ts';
import { subjectOf } from './authorize-purchase.ts';

interface MinorMoney {
  minor: number;
  currency: string;
}

interface SnapshotGrant {
  grant_id: string;
  parent_grant_id: string | null;
  state?: string;
  scope: GrantScope;
  spent_today?: MinorMoney;
}

const money: JsonSchema = {
  type: 'object',
  required: ['amount', 'currency'],
  properties: { amount: { type: 'number' }, currency: { type: 'string' } },
};

const MONEY_FIELDS = ['max_amount_per_purchase', 'max_daily_amount', 'requires_approval_above'] as const;

export function myAuthorityTool(session: AgentSession): ToolDefinition {
  return {
    name: 'my_authority',
    title: 'My authority',
    description:
      'What this agent may do for the person it acts for, with its card token: the effective scope (limits, ' +
      'allowed and blocked merchant categories, countries, actions), what is left of today’s limit, when the ' +
      'authority expires and the chain of grants it comes from. Asking is recorded as a purchase.search decision.',
    inputSchema: { type: 'object', additionalProperties: false, properties: {} },
    outputSchema: {
      type: 'object',
      required: ['agent', 'principal', 'instrument', 'has_authority', 'probe_decision_id', 'explanation', 'chain'],
      properties: {
        agent: { type: 'string' },
        principal: { type: 'string' },
        instrument: { type: 'string', description: 'the card token id (never a card number)' },
        has_authority: { type: 'boolean' },
        probe_decision_id: { type: 'string', description: 'the recorded purchase.search decision this was read from' },
        explanation: { type: 'string' },
        chain: {
          type: 'array',
          description: 'the grants, root first; the last is this agent’s own',
          items: {
            type: 'object',
            required: ['grant_id', 'state'],
            properties: { grant_id: { type: 'string' }, state: { type: 'string' } },
          },
        },
        effective_scope: {
          type: 'object',
          properties: {
            max_amount_per_purchase: money,
            max_daily_amount: money,
            requires_approval_above: money,
            allowed_merchant_categories: { type: 'array', items: { type: 'string' } },
            blocked_merchant_categories: { type: 'array', items: { type: 'string' } },
            allowed_jurisdictions: { type: 'array', items: { type: 'string' } },
            allowed_actions: { type: 'array', items: { type: 'string' } },
            valid_until: { type: 'string' },
          },
        },
        spent_today: money,
        remaining_today: money,
        expires_at: { type: 'string' },
      },
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run() {
      const { agent, principal, instrument } = session.identity;
      const probe = await session.authorize({
        actor_entity_id: agent,
        principal_entity_id: principal,
        subject: subjectOf('search'),
        scope: { instrument },
      });
      const record = await session.decision(probe.policy_decision_id);
      const chain = decidingChain(record);
      const base = {
        agent,
        principal,
        instrument,
        probe_decision_id: probe.policy_decision_id,
        chain: chain.map((g) => ({ grant_id: g.grant_id, state: g.state ?? 'unknown' })),
      };
      if (probe.decision === 'deny' || chain.length === 0) {
        const explanation = `No usable authority: ${reasonInWords(probe.reason)}`;
        return { structured: { ...base, has_authority: false, explanation }, text: explanation };
      }
      const effective = computeEffectiveScope(chain.map((g) => g.scope));
      const scope = majorScope(effective);
      const daily = headroom(chain);
      const structured: Record<string, unknown> = {
        ...base,
        has_authority: true,
        explanation: reasonInWords(probe.reason),
        effective_scope: scope,
        ...(daily ? { spent_today: moneyToJson(daily.spent), remaining_today: moneyToJson(daily.remaining) } : {}),
        ...(effective.valid_until ? { expires_at: effective.valid_until } : {}),
      };
      return { structured, text: authorityText(structured) };
    },
  };
}

/** The chain that decided, root first: the leaf the decision names, then its parents as the snapshot holds them. */
function decidingChain(record: Record<string, unknown>): SnapshotGrant[] {
  const snapshot = record.snapshot as { grants?: SnapshotGrant[] } | undefined;
  const grants = Array.isArray(snapshot?.grants) ? snapshot.grants : [];
  const byId = new Map(grants.map((g) => [g.grant_id, g]));
  const leafId = (record.diagnostics as { grant_id?: unknown } | undefined)?.grant_id;
  const chain: SnapshotGrant[] = [];
  let next = typeof leafId === 'string' ? byId.get(leafId) : undefined;
  while (next && chain.length <= 32 && !chain.includes(next)) {
    chain.unshift(next);
    next = next.parent_grant_id ? byId.get(next.parent_grant_id) : undefined;
  }
  return chain;
}

function majorScope(scope: GrantScope): Record<string, unknown> {
  const out: Record<string, unknown> = { ...scope };
  for (const field of MONEY_FIELDS) {
    const value = scope[field] as MinorMoney | undefined;
    if (value) out[field] = moneyToJson(value);
  }
  delete out.may_delegate;
  delete out.max_delegation_depth;
  return out;
}

/** Today's headroom: the smallest `max_daily_amount - spent_today` of any link with a daily limit (never below 0). */
function headroom(chain: readonly SnapshotGrant[]): { spent: MinorMoney; remaining: MinorMoney } | undefined {
  let best: { spent: MinorMoney; remaining: MinorMoney } | undefined;
  for (const grant of chain) {
    const limit = grant.scope.max_daily_amount as MinorMoney | undefined;
    if (!limit) continue;
    const spent =
      grant.spent_today?.currency === limit.currency ? grant.spent_today : { minor: 0, currency: limit.currency };
    const remaining = { minor: Math.max(0, limit.minor - spent.minor), currency: limit.currency };
    if (!best || remaining.minor < best.remaining.minor) best = { spent, remaining };
  }
  return best;
}

function authorityText(a: Record<string, unknown>): string {
  const scope = a.effective_scope as Record<string, { amount: number; currency: string } | string[] | undefined>;
  const fmt = (m: unknown) => {
    const v = m as { amount: number; currency: string } | undefined;
    return v ? `${v.amount} ${v.currency}` : 'no limit';
  };
  const lines = [
    `Acting for ${String(a.principal)} with card token ${String(a.instrument)}.`,
    `Per purchase: ${fmt(scope.max_amount_per_purchase)}; per day: ${fmt(scope.max_daily_amount)}` +
      (a.remaining_today ? ` (${fmt(a.remaining_today)} left today)` : '') +
      `; approval needed above ${fmt(scope.requires_approval_above)}.`,
  ];
  if (Array.isArray(scope.blocked_merchant_categories)) {
    lines.push(`Blocked merchant categories: ${scope.blocked_merchant_categories.join(', ')}.`);
  }
  if (Array.isArray(scope.allowed_merchant_categories)) {
    lines.push(`Allowed merchant categories: ${scope.allowed_merchant_categories.join(', ')}.`);
  }
  if (Array.isArray(scope.allowed_jurisdictions)) lines.push(`Countries: ${scope.allowed_jurisdictions.join(', ')}.`);
  if (Array.isArray(scope.allowed_actions)) lines.push(`Actions: ${scope.allowed_actions.join(', ')}.`);
  if (a.expires_at) lines.push(`Expires ${String(a.expires_at)}.`);
  lines.push(`Chain: ${(a.chain as Array<{ grant_id: string }>).map((g) => g.grant_id).join(' -> ')}.`);
  return lines.join('\n');
}
