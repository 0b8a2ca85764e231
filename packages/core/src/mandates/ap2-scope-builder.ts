/**
 * The accumulator of ap2MandateToScope (ap2-scope.ts): the scope being built, the single currency of its money fields,
 * the merchants every constraint allows, the earliest end, and the errors, each with its JSON pointer; plus the AP2
 * date reading and the constraint list reading every mapping shares. Hand-written (AP2 semantics).
 * INVARIANT: a narrowing only: every method can lower a limit, shrink the merchant list or add an error, never widen.
 */
import { isCurrency } from '../money/currencies.ts';
import { moneyToJson } from '../money/money-format.ts';
import { parseAmount, type Money } from '../money/money.ts';
import type { Ap2Mandate, MandateError } from './mandate-types.ts';

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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An AP2 date (`YYYY-MM-DD`, inclusive: its last second) or RFC 3339 date-time, as Unix seconds. */
export function parseAp2Date(value: unknown, endOfDay: boolean): number | undefined {
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

export class ScopeBuilder {
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

export function constraintsOf(mandate: Ap2Mandate, b: ScopeBuilder): Array<[Record<string, unknown>, string]> {
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
