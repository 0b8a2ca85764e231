import type { AppContext } from '../../../app-context.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/** The signing key is rotated at least yearly (a cryptoperiod in the spirit of NIST SP 800-57 part 1). */
export const MAX_SIGNING_KEY_AGE_DAYS = 365;
const DAY_MS = 24 * 3600 * 1000;

export function checkSigningKeyAge(ctx: AppContext): SelfAuditCheck {
  const current = ctx.keys.localKeys().find((k) => k.valid_until === null);
  const keyId = ctx.keys.current().keyId;
  const validFrom = current?.valid_from ?? null;
  const ageDays = validFrom === null ? null : Math.floor((ctx.clock.now().getTime() - Date.parse(validFrom)) / DAY_MS);
  const evidence = { key_id: keyId, valid_from: validFrom, age_days: ageDays, max_age_days: MAX_SIGNING_KEY_AGE_DAYS };
  if (ageDays !== null && ageDays <= MAX_SIGNING_KEY_AGE_DAYS) {
    return passed('signing_key_age', `the signing key is ${ageDays} days old`, evidence);
  }
  return failed(
    'signing_key_age',
    'fail',
    ageDays === null
      ? 'the age of the signing key is unknown'
      : `the signing key is ${ageDays} days old (more than ${MAX_SIGNING_KEY_AGE_DAYS})`,
    evidence,
    'Rotate it: `aar keys rotate` (the old key stays published in the JWKS, so documents it signed keep verifying).',
  );
}
