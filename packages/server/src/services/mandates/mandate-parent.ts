/**
 * What a mandate or allowance borrows from the request and the parent grant: the merchants the body names (each a
 * registered, active merchant, stored by its plain id as `resource.merchant_id` carries it), the forms of the
 * parent's card token an AP2 instrument id may use, and the subset check's refusal restated as `not_subset` errors.
 */
import { AarError, type MandateError } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { mandateInvalid } from './mandate-invalid.ts';

const MERCHANT_PREFIX = 'ns:merchant:';
const MAX_PAYEES = 100;

/** `ns:merchant:x` or `x` -> `x`. */
export function plainMerchantId(id: string): string {
  return id.startsWith(MERCHANT_PREFIX) ? id.slice(MERCHANT_PREFIX.length) : id;
}

/** payee id -> plain merchant id, every merchant registered and active; 422 naming `/payees/<payee id>` otherwise. */
export async function resolveMerchants(
  db: Kysely<Database>,
  payees: Record<string, string>,
  base: string,
): Promise<Record<string, string>> {
  const entries = Object.entries(payees);
  if (entries.length > MAX_PAYEES) {
    throw new AarError('invalid_request', `${base}: at most ${MAX_PAYEES} payees`, {
      errors: [{ path: base, message: `at most ${MAX_PAYEES} payees` }],
    });
  }
  const out: Record<string, string> = {};
  for (const [payee, merchant] of entries) out[payee] = plainMerchantId(merchant);
  const ids = [...new Set(Object.values(out))];
  const rows =
    ids.length === 0
      ? []
      : await db.selectFrom('merchants').select(['merchant_id', 'state']).where('merchant_id', 'in', ids).execute();
  const errors = entries
    .filter(([payee]) => rows.find((r) => r.merchant_id === out[payee])?.state !== 'active')
    .map(([payee]) => {
      const found = rows.find((r) => r.merchant_id === out[payee]);
      return {
        path: `${base}/${payee.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: found
          ? `merchant \`${out[payee]}\` is ${found.state}`
          : `merchant \`${out[payee]}\` is not registered`,
      };
    });
  if (errors.length > 0) {
    throw new AarError(
      errors.some((e) => e.message.endsWith('not registered')) ? 'reference_not_found' : 'reference_invalid',
      `${errors.length} payee(s) name no usable merchant`,
      { errors },
    );
  }
  return out;
}

/** The spellings of the parent's card token an instrument id may use: `ns:card_token:<id>`, its credential, `<id>`. */
export function cardTokenForms(resourceId: string): string[] {
  const local = resourceId.replace(/^ns:credential:card-token:/, '');
  return [`ns:card_token:${local}`, resourceId, local];
}

/** POST /v1/grants' `scope_not_subset`, restated as 422 `mandate_invalid` with one `not_subset` per wider field. */
export function notSubsetErrors(error: unknown): AarError | undefined {
  if (!(error instanceof AarError) || error.code !== 'scope_not_subset') return undefined;
  const errors: MandateError[] = (error.errors ?? []).map((e) => ({
    path: e.path,
    code: 'not_subset',
    detail: `wider than the parent grant: ${e.message}`,
  }));
  return mandateInvalid(errors, 'the mandate is wider than the grant it is delegated under and');
}
