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
import { isCurrency } from '../money/currencies.ts';
import { moneyToJson } from '../money/money-format.ts';
import { parseAmount, type Money } from '../money/money.ts';
import type { Ap2Mandate, MandateError, VerifiedAp2 } from './mandate-types.ts';

export type Ap2BudgetPeriod = 'day' | 'week' | 'month' | 'year' | 'total';

export interface Ap2WireMoney {
  /** major units, exact (the wire form of the grant scope's money fields) */
  amount: number;
  currency: string;
}

/** The scope fields a mandate maps onto, in the wire form POST /v1/grants reads. */
export interface Ap2WireScope {
  max_amount_per_purchase?: Ap2WireMoney;
  budget?: Ap2WireMoney & { period: Ap2BudgetPeriod };
  allowed_merchants?: string[];
  valid_until?: string;
}

export interface Ap2ScopeContext {
  /** AP2 payee / merchant id -> aar merchant id (`ns:merchant:...`) */
  payees: Readonly<Record<string, string>>;
  /** the parent grant's card token id(s), as AP2 payment instrument ids */
  instrumentIds: readonly string[];
  /** now, for execution_date.not_before and a closed execution_date; absent: any such date is refused */
  nowSeconds?: number;
}

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

const PERIOD_OF: Readonly<Record<string, Ap2BudgetPeriod>> = {
  ON_DEMAND: 'total',
  DAILY: 'day',
  WEEKLY: 'week',
  MONTHLY: 'month',
  ANNUALLY: 'year',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An AP2 date (`YYYY-MM-DD`, inclusive: its last second) or RFC 3339 date-time, as Unix seconds. */
function parseAp2Date(value: unknown, endOfDay: boolean): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (DATE_ONLY.test(value)) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return undefined;
    return ms / 1000 + (endOfDay ? 86_399 : 0);
  }
  if (!DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

class ScopeBuilder {
  readonly errors: MandateError[] = [];
  readonly scope: Ap2WireScope = {};
  currency: string | undefined;
  merchants: string[] | undefined;
  validUntil: number | undefined;
  /** the lowest per-purchase maximum of every open payment mandate */
  maxMinor: { minor: number; currency: string } | undefined;
  /** the lowest budget of every open payment mandate, and its period */
  budgetMinor: { minor: number; currency: string } | undefined;
  period: Ap2BudgetPeriod | undefined;

  constructor(readonly ctx: Ap2ScopeContext) {}

  refuse(path: string, detail: string): void {
    this.errors.push({ path, code: 'unsupported_constraint', detail });
  }

  invalid(path: string, detail: string): void {
    this.errors.push({ path, code: 'schema_invalid', detail });
  }

  /** integer minor units in a known currency, or undefined (with an error) */
  money(amount: unknown, currency: unknown, path: string): { minor: number; currency: string } | undefined {
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
      this.invalid(`${path}/amount`, 'must be a positive whole number of minor units');
      return undefined;
    }
    if (!isCurrency(currency)) {
      this.invalid(`${path}/currency`, 'must be an upper-case ISO 4217 code');
      return undefined;
    }
    if (this.currency !== undefined && currency !== this.currency) {
      this.refuse(`${path}/currency`, `every limit of a grant is in one currency (\`${this.currency}\`)`);
      return undefined;
    }
    this.currency = currency;
    return { minor: amount, currency };
  }

  /**
   * payment.budget's `max` is a JSON number of MAJOR units (the schema says "number", unlike amount_range's integer
   * minor units, and the AP2 reference SDK's BudgetEvaluator multiplies it by 100): read exactly with parseAmount
   * (the currency's own decimals, no float arithmetic).
   */
  budgetMoney(max: unknown, currency: unknown, path: string): { minor: number; currency: string } | undefined {
    if (!isCurrency(currency)) {
      this.invalid(`${path}/currency`, 'must be an upper-case ISO 4217 code');
      return undefined;
    }
    let money: Money;
    try {
      money = parseAmount(max, currency, `${path}/max`, `${path}/currency`);
    } catch {
      this.invalid(
        `${path}/max`,
        `must be a positive amount in major units with at most the decimals of \`${currency}\``,
      );
      return undefined;
    }
    if (this.currency !== undefined && currency !== this.currency) {
      this.refuse(`${path}/currency`, `every limit of a grant is in one currency (\`${this.currency}\`)`);
      return undefined;
    }
    this.currency = currency;
    return money;
  }

  wire(money: { minor: number; currency: string }, path: string): Ap2WireMoney | undefined {
    try {
      return moneyToJson(money);
    } catch {
      this.invalid(path, 'has no exact major-unit amount');
      return undefined;
    }
  }

  /** one AP2 merchant object at `path` -> its aar merchant id through ctx.payees (errors at `path`/id) */
  merchantOf(merchant: unknown, path: string): string | undefined {
    const id = isObject(merchant) ? merchant.id : undefined;
    if (typeof id !== 'string') {
      this.invalid(`${path}/id`, 'must be a string');
      return undefined;
    }
    const target = Object.hasOwn(this.ctx.payees, id) ? this.ctx.payees[id] : undefined;
    if (typeof target !== 'string') {
      this.refuse(`${path}/id`, `the payee \`${id}\` is not mapped to an aar merchant (payees)`);
      return undefined;
    }
    return target;
  }

  merchantsFrom(list: unknown, path: string): string[] | undefined {
    if (!Array.isArray(list)) {
      this.invalid(path, 'must be an array of merchants');
      return undefined;
    }
    if (list.length === 0) {
      this.refuse(path, 'no payee is disclosed: the mandate would allow none');
      return undefined;
    }
    const mapped: string[] = [];
    list.forEach((merchant: unknown, i) => {
      const target = this.merchantOf(merchant, `${path}/${i}`);
      if (target !== undefined && !mapped.includes(target)) mapped.push(target);
    });
    return mapped;
  }

  restrictMerchants(list: string[] | undefined, path: string): void {
    if (list === undefined) return;
    const next = this.merchants === undefined ? list : this.merchants.filter((m) => list.includes(m));
    if (next.length === 0 && list.length > 0) this.refuse(path, 'no merchant is allowed by every constraint');
    this.merchants = next;
  }

  until(seconds: number | undefined): void {
    if (seconds !== undefined && (this.validUntil === undefined || seconds < this.validUntil))
      this.validUntil = seconds;
  }

  instrument(ids: unknown[], path: string): void {
    if (!ids.some((id) => typeof id === 'string' && this.ctx.instrumentIds.includes(id))) {
      this.errors.push({
        path,
        code: 'not_subset',
        detail: "names none of the parent grant's card tokens as its payment instrument",
      });
    }
  }

  notBefore(value: unknown, path: string): void {
    const at = parseAp2Date(value, false);
    if (at === undefined) {
      this.invalid(path, 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time');
      return;
    }
    if (this.ctx.nowSeconds === undefined || at > this.ctx.nowSeconds) {
      this.refuse(path, 'a start date still ahead: aar grants are valid from their creation');
    }
  }
}

function constraintsOf(mandate: Ap2Mandate, b: ScopeBuilder): Array<[Record<string, unknown>, string]> {
  const list = mandate.content.constraints;
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    b.invalid(`${mandate.path}/constraints`, 'must be an array');
    return [];
  }
  const seen = new Map<string, string>();
  const out: Array<[Record<string, unknown>, string]> = [];
  list.forEach((constraint: unknown, i) => {
    const path = `${mandate.path}/constraints/${i}`;
    if (!isObject(constraint) || typeof constraint.type !== 'string') {
      b.invalid(path, 'a constraint is an object with a string `type`');
      return;
    }
    const first = seen.get(constraint.type);
    if (first !== undefined) {
      b.refuse(path, `\`${constraint.type}\` is listed twice (first at ${first})`);
      return;
    }
    seen.set(constraint.type, path);
    out.push([constraint, path]);
  });
  return out;
}

/** One open payment mandate's constraints, narrowing what the builder holds (several: a re-delegated chain). */
function mapOpenPayment(mandate: Ap2Mandate, b: ScopeBuilder): string | undefined {
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

function mapOpenCheckout(mandate: Ap2Mandate, b: ScopeBuilder): void {
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
function mapClosedPayment(closed: Ap2Mandate, opens: readonly Ap2Mandate[], b: ScopeBuilder): string | undefined {
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
