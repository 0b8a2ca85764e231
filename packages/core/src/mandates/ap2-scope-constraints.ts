/**
 * The AP2 constraint types, one mapping each, for ap2MandateToScope (ap2-scope.ts has the table): an open payment
 * mandate's constraints onto the builder, an open checkout's, and a closed payment as the exact purchase checked
 * against every open payment mandate of its chain (AP2 agent_authorization.md, verification rules 2 and 3).
 * Hand-written (AP2 semantics). Attacker assumption: the values passed signature checks but may be nonsensical: every
 * read is type-checked here.
 */
import { isCurrency } from '../money/currencies.ts';
import { parseAmount } from '../money/money.ts';
import { constraintsOf, isObject, parseAp2Date, type Ap2BudgetPeriod, type ScopeBuilder } from './ap2-scope-builder.ts';
import type { Ap2Mandate } from './mandate-types.ts';

const PERIOD_OF: Readonly<Record<string, Ap2BudgetPeriod>> = {
  ON_DEMAND: 'total',
  DAILY: 'day',
  WEEKLY: 'week',
  MONTHLY: 'month',
  ANNUALLY: 'year',
};

/** One open payment mandate's constraints, narrowing what the builder holds (several: a re-delegated chain). */
export function mapOpenPayment(mandate: Ap2Mandate, b: ScopeBuilder): string | undefined {
  let reference: string | undefined;
  let frequency: [string, string] | undefined;
  let budget: { minor: number; currency: string } | undefined;
  const c = mandate.content;
  if (c.payee !== undefined) {
    const merchant = b.merchantOf(c.payee, `${mandate.path}/payee`);
    b.restrictMerchants(merchant === undefined ? undefined : [merchant], `${mandate.path}/payee`);
  }
  if (c.payment_instrument !== undefined) {
    b.instrument(
      [isObject(c.payment_instrument) ? c.payment_instrument.id : undefined],
      `${mandate.path}/payment_instrument/id`,
    );
  }
  for (const name of ['payment_amount', 'pisp', 'execution_date'] as const) {
    if (c[name] !== undefined)
      b.refuse(`${mandate.path}/${name}`, `a fixed \`${name}\` in an open mandate is not enforceable by aar`);
  }
  for (const [constraint, path] of constraintsOf(mandate, b)) {
    switch (constraint.type) {
      case 'payment.amount_range': {
        if (constraint.min !== undefined && constraint.min !== 0) {
          b.refuse(`${path}/min`, 'aar has no minimum purchase amount');
        }
        const money = b.money(constraint.max, constraint.currency, path);
        if (money && (b.maxMinor === undefined || money.minor < b.maxMinor.minor)) b.maxMinor = money;
        break;
      }
      case 'payment.budget': {
        budget = b.budgetMoney(constraint.max, constraint.currency, path);
        break;
      }
      case 'payment.agent_recurrence': {
        if (constraint.max_occurrences !== undefined) {
          b.refuse(`${path}/max_occurrences`, 'aar limits money over a period, it cannot count occurrences');
        }
        if (typeof constraint.frequency !== 'string') b.invalid(`${path}/frequency`, 'must be a string');
        else frequency = [constraint.frequency, `${path}/frequency`];
        break;
      }
      case 'payment.allowed_payees':
        b.restrictMerchants(b.merchantsFrom(constraint.allowed, `${path}/allowed`), `${path}/allowed`);
        break;
      case 'payment.allowed_payment_instruments': {
        const list = Array.isArray(constraint.allowed) ? constraint.allowed : [];
        b.instrument(
          list.map((item: unknown) => (isObject(item) ? item.id : undefined)),
          `${path}/allowed`,
        );
        break;
      }
      case 'payment.execution_date':
        if (constraint.not_before !== undefined) b.notBefore(constraint.not_before, `${path}/not_before`);
        if (constraint.not_after !== undefined) {
          const at = parseAp2Date(constraint.not_after, true);
          if (at === undefined) b.invalid(`${path}/not_after`, 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time');
          b.until(at);
        }
        break;
      case 'payment.reference':
        if (typeof constraint.conditional_transaction_id !== 'string') {
          b.invalid(`${path}/conditional_transaction_id`, 'must be a string');
        } else reference = constraint.conditional_transaction_id;
        break;
      case 'payment.allowed_pisps':
        b.refuse(path, 'aar does not see which PISP initiates a payment');
        break;
      default:
        b.refuse(`${path}/type`, `unknown constraint type \`${constraint.type}\``);
    }
  }
  let period: Ap2BudgetPeriod | undefined;
  if (frequency !== undefined) {
    period = PERIOD_OF[frequency[0]];
    if (period === undefined) b.refuse(frequency[1], `no aar budget period matches \`${frequency[0]}\``);
    else if (budget === undefined) {
      // AP2 (reference SDK check_payment_constraints): agent_recurrence requires payment.budget
      b.refuse(frequency[1], 'a recurrence without a payment.budget is a cadence aar cannot enforce');
    }
  }
  if (budget !== undefined) {
    const own = period ?? 'total';
    if (b.period !== undefined && b.period !== own) {
      b.refuse(`${mandate.path}/constraints`, `budget periods differ along the chain (\`${b.period}\`, \`${own}\`)`);
    } else {
      b.period = own;
      if (b.budgetMinor === undefined || budget.minor < b.budgetMinor.minor) b.budgetMinor = budget;
    }
  }
  return reference;
}

export function mapOpenCheckout(mandate: Ap2Mandate, b: ScopeBuilder): void {
  for (const [constraint, path] of constraintsOf(mandate, b)) {
    switch (constraint.type) {
      case 'checkout.allowed_merchants':
        b.restrictMerchants(b.merchantsFrom(constraint.allowed, `${path}/allowed`), `${path}/allowed`);
        break;
      case 'checkout.line_items':
        b.refuse(path, 'aar does not see the line items of a purchase');
        break;
      default:
        b.refuse(`${path}/type`, `unknown constraint type \`${constraint.type}\``);
    }
  }
}

/** The closed payment, checked against every open payment mandate of the chain. */
export function mapClosedPayment(
  closed: Ap2Mandate,
  opens: readonly Ap2Mandate[],
  b: ScopeBuilder,
): string | undefined {
  const c = closed.content;
  const amountPath = `${closed.path}/payment_amount`;
  const amount = isObject(c.payment_amount)
    ? b.money(c.payment_amount.amount, c.payment_amount.currency, amountPath)
    : undefined;
  if (!isObject(c.payment_amount)) b.invalid(amountPath, 'must be an object { amount, currency }');
  const merchant = b.merchantOf(c.payee, `${closed.path}/payee`);
  b.restrictMerchants(merchant === undefined ? undefined : [merchant], `${closed.path}/payee`);
  const instrument = isObject(c.payment_instrument) ? c.payment_instrument.id : undefined;
  b.instrument([instrument], `${closed.path}/payment_instrument/id`);
  if (c.pisp !== undefined) b.refuse(`${closed.path}/pisp`, 'aar does not see which PISP initiates a payment');
  if (c.execution_date !== undefined) {
    const at = parseAp2Date(c.execution_date, false);
    if (at === undefined) b.invalid(`${closed.path}/execution_date`, 'must be a date or an RFC 3339 date-time');
    else if (b.ctx.nowSeconds === undefined || at > b.ctx.nowSeconds + 86_400) {
      b.refuse(`${closed.path}/execution_date`, 'a scheduled payment: aar authorizes purchases now');
    }
  }
  if (amount !== undefined) {
    const wire = b.wire(amount, `${amountPath}/amount`);
    if (wire) {
      b.scope.max_amount_per_purchase = wire;
      b.scope.budget = { ...wire, period: 'total' };
    }
  }
  for (const open of opens) checkClosedWithinOpen(c, closed.path, open, amount, b);
  return typeof c.transaction_id === 'string' ? c.transaction_id : undefined;
}

function notSubset(b: ScopeBuilder, path: string, detail: string): void {
  b.errors.push({ path, code: 'not_subset', detail });
}

function checkClosedWithinOpen(
  c: Record<string, unknown>,
  closedPath: string,
  open: Ap2Mandate,
  amount: { minor: number; currency: string } | undefined,
  b: ScopeBuilder,
): void {
  for (const name of ['payee', 'payment_amount', 'payment_instrument', 'pisp', 'execution_date'] as const) {
    const fixed = open.content[name];
    if (fixed !== undefined && JSON.stringify(fixed) !== JSON.stringify(c[name])) {
      notSubset(b, `${closedPath}/${name}`, `differs from the open mandate's \`${name}\``);
    }
  }
  const payeeId = isObject(c.payee) ? c.payee.id : undefined;
  const instrumentId = isObject(c.payment_instrument) ? c.payment_instrument.id : undefined;
  for (const [constraint, path] of constraintsOf(open, b)) {
    switch (constraint.type) {
      case 'payment.amount_range':
      case 'payment.budget': {
        if (amount === undefined) break;
        // amount_range in minor units; budget in major units (see budgetMoney): one closed payment within either
        let max = -1;
        if (constraint.type === 'payment.amount_range') {
          max = typeof constraint.max === 'number' ? constraint.max : -1;
        } else if (isCurrency(constraint.currency)) {
          try {
            max = parseAmount(constraint.max, constraint.currency, '', '').minor;
          } catch {
            max = -1;
          }
        }
        const min =
          constraint.type === 'payment.amount_range' && typeof constraint.min === 'number' ? constraint.min : 0;
        if (constraint.currency !== amount.currency || amount.minor > max || amount.minor < min) {
          notSubset(b, `${closedPath}/payment_amount`, `outside the open mandate's ${constraint.type} (${path})`);
        }
        break;
      }
      case 'payment.allowed_payees':
      case 'payment.allowed_payment_instruments': {
        const id = constraint.type === 'payment.allowed_payees' ? payeeId : instrumentId;
        const list = Array.isArray(constraint.allowed) ? constraint.allowed : [];
        if (!list.some((item: unknown) => isObject(item) && item.id === id)) {
          const member = constraint.type === 'payment.allowed_payees' ? 'payee' : 'payment_instrument';
          notSubset(
            b,
            `${closedPath}/${member}/id`,
            `not among the open mandate's disclosed ${constraint.type} (${path})`,
          );
        }
        break;
      }
      case 'payment.execution_date': {
        const after = parseAp2Date(constraint.not_after, true);
        if (after !== undefined) b.until(after);
        if (constraint.not_before !== undefined) b.notBefore(constraint.not_before, `${path}/not_before`);
        break;
      }
      case 'payment.agent_recurrence':
      case 'payment.reference':
        // one single-use payment is within any recurrence; the reference names the open checkout (recorded)
        break;
      case 'payment.allowed_pisps':
        b.refuse(path, 'aar does not see which PISP initiates a payment');
        break;
      default:
        b.refuse(`${path}/type`, `unknown constraint type \`${constraint.type}\``);
    }
  }
}
