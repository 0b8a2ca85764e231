/**
 * Step 6: the amount, in integer minor units, is in the currency of every money limit of the chain (never converted),
 * within every link's `max_amount_per_purchase`, and, for `execute`, within every link's `max_daily_amount` once the
 * day's reserved and settled spend of that link's subtree is added. A sum beyond 2^53 is refused, not rounded.
 * aar-decide/1.4.0: a link's own `budget` is a money limit too (its currency must be the request's), and for
 * `execute` the link's `budget_spent` in the budget's current period plus the amount must stay within it; a missing
 * or malformed `budget_spent` is `budget_exceeded` (fail closed: the budget cannot be shown to hold).
 * Precondition: the chain check passed, so `ctx.scopes` holds well-formed scopes.
 */
import { MONEY_MOVING_ACTIONS } from '../action-from-subject.ts';
import { isMinorMoney, ownValue } from '../guards.ts';
import { MONEY_FIELDS } from '../scope-fields.ts';
import { fail, idOf, pass, quote, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkAmount(ctx: CheckContext): CheckVerdict {
  const { request, grants } = ctx;
  const scopes = ctx.scopes ?? [];
  const amount: unknown = request.amount;
  if (amount === undefined) {
    if (ctx.action === undefined || MONEY_MOVING_ACTIONS.includes(ctx.action)) {
      return fail('amount_above_agent_threshold', `amount required for ${quote(request.action)}`);
    }
    return { outcome: 'skip', detail: 'no amount' };
  }
  if (!isMinorMoney(amount)) {
    const currency = (amount as { currency?: unknown } | null)?.currency;
    if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
      return fail('currency_mismatch', `currency ${quote(currency)} is not a currency code`);
    }
    return fail('amount_above_agent_threshold', 'amount is not a safe integer of minor units');
  }
  if (amount.minor === 0) return fail('amount_above_agent_threshold', 'amount must be greater than zero');
  for (const [i, scope] of scopes.entries()) {
    for (const field of MONEY_FIELDS) {
      const limit = scope[field];
      if (limit && limit.currency !== amount.currency) {
        return fail(
          'currency_mismatch',
          `request in ${quote(amount.currency)}, grant ${idOf(grants, i)} ${field} in ${quote(limit.currency)}`,
        );
      }
    }
    const budget = scope.budget;
    if (budget && budget.currency !== amount.currency) {
      return fail(
        'currency_mismatch',
        `request in ${quote(amount.currency)}, grant ${idOf(grants, i)} budget in ${quote(budget.currency)}`,
      );
    }
  }
  for (const [i, scope] of scopes.entries()) {
    const limit = scope.max_amount_per_purchase;
    if (limit && amount.minor > limit.minor) {
      return fail('amount_above_agent_threshold', `over grant ${idOf(grants, i)} max_amount_per_purchase`);
    }
  }
  if (ctx.action !== 'execute') return pass('within max_amount_per_purchase');
  for (const [i, scope] of scopes.entries()) {
    const limit = scope.max_daily_amount;
    if (!limit) continue;
    const spent: unknown = grants[i]?.spent_today;
    if (!isMinorMoney(spent) || (spent.currency !== limit.currency && spent.minor !== 0)) {
      return fail('daily_limit_exceeded', `grant ${idOf(grants, i)} spent_today is malformed`);
    }
    const total = spent.minor + amount.minor;
    if (!Number.isSafeInteger(total) || total > limit.minor) {
      return fail('daily_limit_exceeded', `over grant ${idOf(grants, i)} max_daily_amount`);
    }
  }
  let budgeted = false;
  for (const [i, scope] of scopes.entries()) {
    const budget = scope.budget;
    if (!budget) continue;
    budgeted = true;
    const spent: unknown = ownValue(grants[i], 'budget_spent');
    if (!isMinorMoney(spent) || (spent.currency !== budget.currency && spent.minor !== 0)) {
      return fail('budget_exceeded', `grant ${idOf(grants, i)} budget_spent is missing or malformed`);
    }
    const total = spent.minor + amount.minor;
    if (!Number.isSafeInteger(total) || total > budget.minor) {
      return fail('budget_exceeded', `over grant ${idOf(grants, i)} budget (${budget.period})`);
    }
  }
  if (budgeted) return pass('within max_amount_per_purchase, max_daily_amount and budget');
  return pass('within max_amount_per_purchase and max_daily_amount');
}
