/**
 * The answers of the graph's point queries read into rows the Graph page lists: spenders of a card token (agent,
 * grant, how much it may still spend today) and an agent's effective capabilities (capability, limits, path).
 * Attacker assumption: untrusted JSON; a row of an unexpected shape is left out.
 */
import { reasonText } from '../../shared/reason-text.ts';
import { shortId } from './format.ts';
import { limitLines, type LimitLine } from './graph-model.ts';
import { formatMoneyValue, isMoneyValue } from './money-value.ts';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function items(answer: unknown, ...names: string[]): Json[] {
  if (Array.isArray(answer)) return answer.filter(isRecord);
  if (!isRecord(answer)) return [];
  for (const name of [...names, 'items'])
    if (Array.isArray(answer[name])) return (answer[name] as unknown[]).filter(isRecord);
  return [];
}

export interface SpenderRow {
  agent: string;
  grant_id: string | undefined;
  /** how much one purchase may move now and what is left today, in words */
  today: string | undefined;
  /** why the path cannot be used now, in words; undefined when it can */
  blocked: string | undefined;
}

const effectiveOf = (row: Json): Json | undefined => (isRecord(row.effective) ? row.effective : undefined);

function blockedText(effective: Json | undefined): string | undefined {
  if (effective === undefined || effective.usable !== false) return undefined;
  const code = str(effective.blocked_by);
  return code ? `${reasonText(code)} (${code})` : 'not usable now';
}

/** Items of the spenders answer: AuthorityPath (docs/graph.md), one per path over the card. */
export function readSpenders(answer: unknown): SpenderRow[] {
  return items(answer).flatMap((row) => {
    const agent = str(row.actor_entity_id);
    if (agent === undefined) return [];
    const effective = effectiveOf(row);
    const left = effective?.remaining_today;
    const now = effective?.max_purchase_now;
    const today = isMoneyValue(left)
      ? `${formatMoneyValue(left)} left today${isMoneyValue(now) ? `, at most ${formatMoneyValue(now)} per purchase` : ''}`
      : isMoneyValue(now)
        ? `at most ${formatMoneyValue(now)} per purchase, no daily limit`
        : 'no amount limit';
    return [{ agent, grant_id: str(row.leaf_grant_id), today, blocked: blockedText(effective) }];
  });
}

export interface CapabilityRow {
  capability: string;
  principal: string | undefined;
  /** the path's actors, root first: who delegated to whom */
  via: string | undefined;
  blocked: string | undefined;
  limits: LimitLine[];
}

/** Items of the capabilities answer: AuthorityPath, one per path ending at the agent. */
export function readCapabilities(answer: unknown): CapabilityRow[] {
  return items(answer).map((row) => {
    const links = Array.isArray(row.links) ? row.links.filter(isRecord) : [];
    const principal = str(row.principal_entity_id);
    const chain = [principal, ...links.map((l) => str(l.actor_entity_id))].filter((p): p is string => p !== undefined);
    const effective = effectiveOf(row);
    return {
      capability: str(row.capability_id) ?? 'capability',
      principal,
      via: chain.length > 0 ? chain.map(shortId).join(' → ') : undefined,
      blocked: blockedText(effective),
      limits: limitLines(effective),
    };
  });
}
