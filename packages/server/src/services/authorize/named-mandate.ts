/**
 * The mandate an authorize request names (CONTRACT section 21, DESIGN-29 decision 4): `{ mandate_id }` or
 * `{ presentation }` (an AP2 presentation whose open part is a registered mandate and whose last hop closes it for
 * exactly this purchase). Read before the decision's transaction; what must be read under lock (a single-use
 * mandate's `used_by`) and the presentation's nonces are handled inside it (mandate-use.ts).
 *
 * INVARIANTS
 * - A request naming a mandate is decided by that mandate's grant only; one naming a mandate that does not exist, or
 *   that is another principal's or another agent's, finds no grant at all: the ordinary `authority_not_found`
 *   decision (it says nothing about other principals' mandates).
 * - A presentation is verified in full (core verifyAp2Presentation: the issuer key from `mandate_issuers` only,
 *   every disclosure, every key binding, `aud` among the configured audiences) and its closed payment mandate must
 *   be this request: `payment_amount` = the request's amount and currency (minor units), `payee.id` mapped through
 *   the mandate's registered payees to the request's merchant, `payment_instrument.id` = the request's card token.
 *   Anything else is 422 `mandate_invalid` naming each fault (`/mandate/presentation/...`), and nothing is recorded.
 * - The open part's own expiry is the mandate grant's `valid_until`: an open part past it is left to decide
 *   (`mandate_expired`, a recorded decision), never a 422; the closing hop's own expiry is checked here.
 * Attacker: the agent (or anyone holding the runtime credential) sends any presentation at all; only keys the
 * deployment registered are trusted, and the open part must be byte for byte a registered document (its digest).
 */
import {
  type AarError,
  mandateDigest,
  verifyAp2Presentation,
  type Ap2Nonce,
  type Ap2TrustedIssuer,
  type MandateError,
} from '@aar/core';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { MandatesTable } from '../../store/index.ts';
import { mandateInvalid as refused } from '../mandates/mandate-invalid.ts';
import { refuseDisclosedCardNumber, validatedAgainstSchemas } from '../mandates/mandate-content-checks.ts';
import type { AuthorizeRequest } from './normalize-request.ts';

export type MandateRow = Selectable<MandatesTable>;

export interface NamedMandate {
  /** the mandate named; null when none matches this principal and agent (decide then finds no grant) */
  row: MandateRow | null;
  /** the key-binding nonces of the presented closing hop, to record in the decision's transaction */
  nonces: Ap2Nonce[];
}

/** Resolves `request.mandate`; undefined when the request names none. Throws 422 `mandate_invalid`. */
export async function resolveNamedMandate(
  ctx: AppContext,
  request: AuthorizeRequest,
  now: Date,
): Promise<NamedMandate | undefined> {
  const ref = request.mandate;
  if (!ref) return undefined;
  const db = ctx.store.db;
  const mine = (row: MandateRow | undefined): MandateRow | null =>
    row && row.principal_entity_id === request.principal_entity_id && row.actor_entity_id === request.actor_entity_id
      ? row
      : null;
  if ('mandate_id' in ref) {
    const row = await db.selectFrom('mandates').selectAll().where('mandate_id', '=', ref.mandate_id).executeTakeFirst();
    return { row: mine(row), nonces: [] };
  }
  const presentation = ref.presentation;
  const cut = presentation.lastIndexOf('~~');
  if (cut < 0) {
    throw mandateInvalid([
      {
        path: '/mandate/presentation',
        code: 'schema_invalid',
        detail: 'must be a registered mandate followed by a closing hop (`<open>~~<closed>`)',
      },
    ]);
  }
  const openPart = presentation.slice(0, cut + 1);
  const row = mine(
    await db
      .selectFrom('mandates')
      .selectAll()
      .where('format', '=', 'ap2')
      .where('digest', '=', mandateDigest(openPart))
      .executeTakeFirst(),
  );
  if (!row) return { row: null, nonces: [] };

  const issuerRow = row.issuer
    ? await db
        .selectFrom('mandate_issuers')
        .select(['issuer', 'jwks'])
        .where('issuer', '=', row.issuer)
        .executeTakeFirst()
    : undefined;
  const issuers = issuerRow ? [{ issuer: issuerRow.issuer, keys: keysOf(issuerRow.jwks) }] : [];
  const result = await verifyAp2Presentation(presentation, {
    issuers,
    nowSeconds: Math.floor(now.getTime() / 1000),
    audiences: mandateAudiences(ctx),
    ...validatedAgainstSchemas(ctx),
  });
  const hops = result.ok ? result.value.hops : (result.partial?.hops ?? []);
  const closing = hops.length - 1;
  // the open part's expiry is the grant's valid_until: decide names it (mandate_expired)
  const errors = result.ok ? [] : result.errors.filter((e) => !(e.code === 'expired' && hopOf(e.path) < closing));
  const verified = result.ok ? result.value : result.partial;
  if (errors.length > 0 || !verified) throw mandateInvalid(errors);
  // the presentation is recorded with the decision: a card number disclosed in it is refused, never stored
  refuseDisclosedCardNumber(verified, '/mandate');
  if (verified.openPart !== openPart || !verified.closed.payment) {
    throw mandateInvalid([
      {
        path: '/mandate/presentation',
        code: 'schema_invalid',
        detail: 'the last hop must close the mandate with a payment mandate (`mandate.payment.1`) for this purchase',
      },
    ]);
  }
  const mismatches = purchaseMismatches(verified.closed.payment, row, request);
  if (mismatches.length > 0) throw mandateInvalid(mismatches);
  return { row, nonces: verified.nonces.filter((n) => n.hop === closing) };
}

/** What of the closed payment mandate is not this purchase (each a `not_subset` error naming the claim). */
function purchaseMismatches(
  payment: { path: string; content: Record<string, unknown> },
  row: MandateRow,
  request: AuthorizeRequest,
): MandateError[] {
  const errors: MandateError[] = [];
  const at = (claim: string) => `/mandate${payment.path}/${claim}`;
  const content = payment.content;
  const amount = record(content.payment_amount);
  if (
    !request.amount ||
    amount?.amount !== request.amount.minor ||
    typeof amount.currency !== 'string' ||
    amount.currency.toUpperCase() !== request.amount.currency
  ) {
    errors.push({
      path: at('payment_amount'),
      code: 'not_subset',
      detail: 'is not the amount and currency of this purchase (minor units)',
    });
  }
  const payeeId = record(content.payee)?.id;
  const merchant = typeof payeeId === 'string' ? payeesOf(row)[payeeId] : undefined;
  if (merchant === undefined || plainMerchant(merchant) !== plainMerchant(request.merchant_id ?? '')) {
    errors.push({
      path: at('payee'),
      code: 'not_subset',
      detail: "is not this purchase's merchant under the payees registered with the mandate",
    });
  }
  const instrumentId = record(content.payment_instrument)?.id;
  if (typeof instrumentId !== 'string' || !sameCardToken(instrumentId, request.instrument_id)) {
    errors.push({
      path: at('payment_instrument'),
      code: 'not_subset',
      detail: "is not this purchase's card token",
    });
  }
  return errors;
}

/** The payee map registered with the mandate (`payees` of POST /v1/mandates), kept in its constraints. */
export function payeesOf(row: MandateRow): Record<string, string> {
  try {
    const payees = record(record(JSON.parse(row.constraints))?.payees);
    if (!payees) return {};
    return Object.fromEntries(Object.entries(payees).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** `ns:merchant:x` and `x` name one merchant (the request carries the plain id). */
function plainMerchant(id: string): string {
  return id.startsWith('ns:merchant:') ? id.slice('ns:merchant:'.length) : id;
}

/** An AP2 instrument id names the request's card token as `ns:card_token:<id>`, its credential id, or `<id>`. */
function sameCardToken(instrumentId: string, requestInstrument: string | undefined): boolean {
  if (!requestInstrument) return false;
  const local = requestInstrument.slice('ns:card_token:'.length);
  return [requestInstrument, `ns:credential:card-token:${local}`, local].includes(instrumentId);
}

function hopOf(path: string): number {
  const m = /^\/presentation\/hops\/(\d+)/.exec(path);
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The keys of a stored JWKS text (`{ keys: [...] }`); none when it does not parse. */
export function keysOf(jwks: string): Ap2TrustedIssuer['keys'] {
  try {
    const keys = record(JSON.parse(jwks))?.keys;
    return Array.isArray(keys) ? (keys.filter((k) => record(k) !== undefined) as Ap2TrustedIssuer['keys']) : [];
  } catch {
    return [];
  }
}

/** The `aud` a key-binding hop must name (AAR_MANDATE_AUDIENCES; default the service's issuer URL). */
export function mandateAudiences(ctx: AppContext): string[] {
  return ctx.config.mandateAudiences.length > 0 ? ctx.config.mandateAudiences : [ctx.config.issuerUrl];
}

/** 422 `mandate_invalid` as POST /v1/mandates answers it, each path under the request's `/mandate`. */
export function mandateInvalid(errors: MandateError[]): AarError {
  return refused(
    errors.map((e) => ({ ...e, path: e.path.startsWith('/mandate') ? e.path : `/mandate${e.path}` })),
    'the presented mandate',
  );
}
