/**
 * A link's scope (wire form: major units, `purchase.` actions) read into decide's form (integer minor units, bare
 * actions), so that attenuation is judged by the same rules everywhere. Attacker assumption: the scope is hostile
 * JSON; nothing here throws, every bad member is named instead. An unknown member is malformed too: a restriction
 * this verifier does not understand must not pass as absent.
 */
import { isPurchaseAction } from '../decide/action-from-subject.ts';
import { isNonNegativeSafeInteger, isRecord, isStringArray, ownValue } from '../decide/guards.ts';
import { parseInstant } from '../decide/instant.ts';
import { BUDGET_PERIODS, MONEY_FIELDS } from '../decide/scope-fields.ts';
import type { BudgetPeriod, GrantScope, PurchaseAction } from '../decide/types.ts';
import { parseAmount } from '../money/money.ts';

const LIST_FIELDS = [
  'allowed_merchant_categories',
  'blocked_merchant_categories',
  'allowed_jurisdictions',
  'allowed_merchants',
] as const;
const KNOWN: ReadonlySet<string> = new Set([
  ...MONEY_FIELDS,
  ...LIST_FIELDS,
  'budget',
  'valid_until',
  'allowed_actions',
  'may_delegate',
  'max_delegation_depth',
]);
const ACTION_PREFIX = 'purchase.';

export interface ReadWireScopeResult {
  /** the well-formed members, converted */
  scope: GrantScope;
  /** names of members that are malformed or unknown; empty when the whole scope was read */
  malformed: string[];
}

export function readWireScope(value: unknown): ReadWireScopeResult {
  if (!isRecord(value)) return { scope: {}, malformed: ['scope'] };
  const scope: GrantScope = {};
  const malformed: string[] = [];
  for (const key of Object.keys(value)) if (!KNOWN.has(key)) malformed.push(key);
  for (const key of MONEY_FIELDS) {
    const money = ownValue(value, key);
    if (money === undefined) continue;
    try {
      if (!isRecord(money) || Object.keys(money).some((k) => k !== 'amount' && k !== 'currency')) throw new Error();
      scope[key] = parseAmount(money.amount, money.currency, '', '');
    } catch {
      malformed.push(key);
    }
  }
  // aar-decide/1.4.0: `{ amount, currency, period }`, money like the limits above plus its period
  const budget = ownValue(value, 'budget');
  if (budget !== undefined) {
    try {
      if (!isRecord(budget) || Object.keys(budget).some((k) => k !== 'amount' && k !== 'currency' && k !== 'period')) {
        throw new Error();
      }
      const period = budget.period;
      if (!(BUDGET_PERIODS as readonly unknown[]).includes(period)) throw new Error();
      const money = parseAmount(budget.amount, budget.currency, '', '');
      scope.budget = { minor: money.minor, currency: money.currency, period: period as BudgetPeriod };
    } catch {
      malformed.push('budget');
    }
  }
  for (const key of LIST_FIELDS) {
    const list = ownValue(value, key);
    if (list === undefined) continue;
    if (isStringArray(list)) scope[key] = [...list];
    else malformed.push(key);
  }
  const actions = ownValue(value, 'allowed_actions');
  if (actions !== undefined) {
    const bare = isStringArray(actions)
      ? actions.map((a) => (a.startsWith(ACTION_PREFIX) ? a.slice(ACTION_PREFIX.length) : ''))
      : undefined;
    if (bare && bare.every(isPurchaseAction)) scope.allowed_actions = bare as PurchaseAction[];
    else malformed.push('allowed_actions');
  }
  const validUntil = ownValue(value, 'valid_until');
  if (validUntil !== undefined) {
    if (typeof validUntil === 'string' && parseInstant(validUntil)) scope.valid_until = validUntil;
    else malformed.push('valid_until');
  }
  const mayDelegate = ownValue(value, 'may_delegate');
  if (mayDelegate !== undefined) {
    if (typeof mayDelegate === 'boolean') scope.may_delegate = mayDelegate;
    else malformed.push('may_delegate');
  }
  const depth = ownValue(value, 'max_delegation_depth');
  if (depth !== undefined) {
    if (isNonNegativeSafeInteger(depth)) scope.max_delegation_depth = depth;
    else malformed.push('max_delegation_depth');
  }
  return { scope, malformed };
}
