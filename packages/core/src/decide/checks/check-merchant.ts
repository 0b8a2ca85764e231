/**
 * Step 5: the merchant is registered, active, and allowed by every link of the chain. An unknown merchant is denied
 * (fail closed). The merchant is required when the request names one or the action moves money; otherwise the check
 * is skipped. Categories and jurisdictions compare as exact strings (CONTRACT section 11). aar-decide/1.4.0: a link's
 * `allowed_merchants` must list the merchant id (exact string), checked right after the merchant is known.
 * Precondition: the chain check passed, so `ctx.scopes` holds well-formed scopes.
 */
import { MONEY_MOVING_ACTIONS } from '../action-from-subject.ts';
import { isNonEmptyString, isRecord } from '../guards.ts';
import { fail, idOf, pass, quote, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkMerchant(ctx: CheckContext): CheckVerdict {
  const { request, grants } = ctx;
  const scopes = ctx.scopes ?? [];
  const required = ctx.action === undefined || MONEY_MOVING_ACTIONS.includes(ctx.action);
  if (request.merchant_id === undefined) {
    if (required) return fail('merchant_unknown', `merchant required for ${quote(request.action)}`);
    return { outcome: 'skip', detail: 'no merchant named' };
  }
  const merchant: unknown = ctx.snapshot.merchant;
  if (!isRecord(merchant)) return fail('merchant_unknown', `merchant ${quote(request.merchant_id)} is not registered`);
  if (merchant.merchant_id !== request.merchant_id) {
    return fail('merchant_unknown', 'snapshot merchant is not the request merchant');
  }
  if (merchant.state !== 'active') return fail('merchant_unknown', `merchant is ${quote(merchant.state)}`);
  const { category, jurisdiction } = merchant;
  if (!isNonEmptyString(category) || !isNonEmptyString(jurisdiction)) {
    return fail('merchant_unknown', 'merchant has no category or jurisdiction');
  }
  for (let i = 0; i < scopes.length; i++) {
    const allowed = scopes[i]!.allowed_merchants;
    if (allowed && !allowed.includes(merchant.merchant_id)) {
      return fail(
        'merchant_not_allowed',
        `merchant ${quote(merchant.merchant_id)} not allowed by grant ${idOf(grants, i)}`,
      );
    }
  }
  for (let i = 0; i < scopes.length; i++) {
    const scope = scopes[i]!;
    if (scope.blocked_merchant_categories?.includes(category)) {
      return fail('merchant_category_blocked', `category ${quote(category)} blocked by grant ${idOf(grants, i)}`);
    }
  }
  for (let i = 0; i < scopes.length; i++) {
    const scope = scopes[i]!;
    const allowed = scope.allowed_merchant_categories;
    if (allowed && !allowed.includes(category)) {
      return fail(
        'merchant_category_not_allowed',
        `category ${quote(category)} not allowed by grant ${idOf(grants, i)}`,
      );
    }
  }
  for (let i = 0; i < scopes.length; i++) {
    const scope = scopes[i]!;
    const allowed = scope.allowed_jurisdictions;
    if (allowed && !allowed.includes(jurisdiction)) {
      return fail(
        'jurisdiction_not_allowed',
        `jurisdiction ${quote(jurisdiction)} not allowed by grant ${idOf(grants, i)}`,
      );
    }
  }
  return pass(`category ${quote(category)}, jurisdiction ${quote(jurisdiction)}`);
}
