/**
 * ap2MandateToScope: a verified AP2 chain -> the scope of the grant it becomes (docs/mandates.md has the table).
 * Hand-written: AP2 constraint semantics (agent_authorization.md, payment_mandate.md, checkout_mandate.md v0.2).
 * INVARIANT: every constraint is either mapped onto a scope field aar enforces, recorded (payment.reference,
 * risk_data), or refused by name (`unsupported_constraint`): nothing is silently dropped, and nothing maps wider
 * than the mandate says. Money stays integer minor units until the exact wire conversion (moneyToJson: major units,
 * the convention of the grant's other limits); every money field of the scope is in one currency.
 * - Closed payment (human present, or the agent's closed payment under an open one): the exact purchase.
 *   max_amount_per_purchase = budget (total) = payment_amount, allowed_merchants = [payee mapped], single use; it
 *   must satisfy every open payment mandate of the chain (else `not_subset`; AP2 agent_authorization.md rules 2-3).
 * - Several open payment mandates (a re-delegated chain): every one applies: the lowest maximum, the lowest budget
 *   (periods must agree), the merchants every one allows, the earliest end.
 * - Open payment: amount_range.max (integer minor units) -> max_amount_per_purchase (a non-zero min: refused, aar has
 *   no minimum); budget.max (a number of MAJOR units: the schema's "number", and the AP2 reference SDK's
 *   BudgetEvaluator, code/sdk/python/ap2/sdk/constraints.py, multiplies it by 100) -> budget with
 *   agent_recurrence.frequency as its period (DAILY day, WEEKLY week, MONTHLY month, ANNUALLY
 *   year, ON_DEMAND total; BIWEEKLY and QUARTERLY have no aar period: refused), budget without recurrence -> total;
 *   agent_recurrence.max_occurrences refused (aar counts money, not occurrences); a recurrence without a budget
 *   refused (AP2's reference SDK requires the budget too; aar cannot enforce a cadence); allowed_payees -> allowed_merchants through ctx.payees
 *   (an unmapped payee refused by name); allowed_payment_instruments must list one of ctx.instrumentIds (`not_subset`);
 *   execution_date.not_after and every exp -> valid_until (the earliest); a not_before still ahead refused;
 *   payment.reference recorded (its conditional_transaction_id becomes checkoutSessionId); allowed_pisps and any
 *   unknown type refused. Fixed open fields: payee -> allowed_merchants, payment_instrument -> instrument check,
 *   payment_amount / pisp / execution_date refused (aar enforces ceilings, not exact values or PISPs).
 * - Open checkout: checkout.allowed_merchants -> allowed_merchants (intersected with the payment's);
 *   checkout.line_items refused (aar does not see line items). A checkout mandate alone authorizes no payment.
 * Attacker assumption: the contents passed verification (signatures, digests) but their values are the issuer's or
 * the agent's words, possibly nonsensical: every read is type-checked here, whether or not a schema ran.
 * Pure: `ctx.nowSeconds` is the only clock (absent: a not_before or future execution_date is refused).
 */
import { ScopeBuilder, isObject, isoSeconds, type Ap2ScopeContext, type Ap2WireScope } from './ap2-scope-builder.ts';
import { mapClosedPayment, mapOpenCheckout, mapOpenPayment } from './ap2-scope-constraints.ts';
import type { Ap2Mandate, MandateError, VerifiedAp2 } from './mandate-types.ts';

export type { Ap2BudgetPeriod, Ap2ScopeContext, Ap2WireMoney, Ap2WireScope } from './ap2-scope-builder.ts';

export type Ap2ScopeResult =
  | {
      ok: true;
      scope: Ap2WireScope;
      singleUse: boolean;
      /** the constraints as recorded with the mandate (the AP2 objects, disclosed values only) */
      constraints: unknown[];
      /** closed payment: its transaction_id; open payment: payment.reference's conditional_transaction_id */
      checkoutSessionId?: string;
    }
  | { ok: false; errors: MandateError[] };

function recorded(mandate: Ap2Mandate | undefined): unknown[] {
  if (mandate === undefined) return [];
  const list = mandate.content.constraints;
  return Array.isArray(list) ? (JSON.parse(JSON.stringify(list)) as unknown[]) : [];
}

/** Maps a verified AP2 chain onto a grant scope; see the file comment for every rule. */
export function ap2MandateToScope(v: VerifiedAp2, ctx: Ap2ScopeContext): Ap2ScopeResult {
  const b = new ScopeBuilder(ctx);
  let checkoutSessionId: string | undefined;
  let singleUse = false;
  const constraints: unknown[] = [];
  const of = (vct: Ap2Mandate['vct']): Ap2Mandate[] => v.mandates.filter((m) => m.vct === vct);
  const openPayments = of('mandate.payment.open.1');
  const closedPayments = of('mandate.payment.1');
  for (const extra of closedPayments.slice(1)) {
    b.refuse(extra.path, `a second closed payment in one chain (the first is ${closedPayments[0]?.path ?? ''})`);
  }
  const closed = closedPayments[0];
  if (closed !== undefined) {
    singleUse = true;
    checkoutSessionId = mapClosedPayment(closed, openPayments, b);
    const c = closed.content;
    constraints.push({
      type: 'mandate.payment.1',
      transaction_id: c.transaction_id,
      payee: c.payee,
      payment_amount: c.payment_amount,
      payment_instrument: isObject(c.payment_instrument)
        ? { id: c.payment_instrument.id, type: c.payment_instrument.type }
        : c.payment_instrument,
    });
  } else if (openPayments.length > 0) {
    for (const open of openPayments) {
      const reference = mapOpenPayment(open, b);
      checkoutSessionId ??= reference;
    }
  } else {
    b.refuse('/presentation', 'no payment mandate: a checkout mandate alone authorizes no payment');
  }
  for (const open of openPayments) constraints.push(...recorded(open));
  for (const open of of('mandate.checkout.open.1')) {
    mapOpenCheckout(open, b);
    constraints.push(...recorded(open));
  }
  if (closed === undefined && b.maxMinor !== undefined) {
    const wire = b.wire(b.maxMinor, `${openPayments[0]?.path ?? ''}/constraints`);
    if (wire) b.scope.max_amount_per_purchase = wire;
  }
  if (closed === undefined && b.budgetMinor !== undefined) {
    const wire = b.wire(b.budgetMinor, `${openPayments[0]?.path ?? ''}/constraints`);
    if (wire) b.scope.budget = { ...wire, period: b.period ?? 'total' };
  }
  if (b.merchants !== undefined) b.scope.allowed_merchants = b.merchants;
  b.until(v.expiresAt);
  if (b.validUntil !== undefined) {
    if (ctx.nowSeconds !== undefined && b.validUntil <= ctx.nowSeconds) {
      b.errors.push({ path: '/presentation', code: 'expired', detail: `valid only until ${isoSeconds(b.validUntil)}` });
    }
    b.scope.valid_until = isoSeconds(b.validUntil);
  }
  if (b.errors.length > 0) return { ok: false, errors: b.errors };
  return {
    ok: true,
    scope: b.scope,
    singleUse,
    constraints,
    ...(checkoutSessionId === undefined ? {} : { checkoutSessionId }),
  };
}
