/**
 * What both doors that take an AP2 presentation (POST /v1/mandates, a presentation at authorize) check of its
 * contents beyond core's verification: the AP2 JSON Schemas when the deployment points to them (AAR_AP2_SCHEMA_DIR,
 * ap2-schemas.ts), and no card number anywhere in what was disclosed. A presentation is stored (the mandate's
 * document, the decision's recorded request), and its disclosures are base64url, out of reach of the JSON reader's
 * card-number guard: so it is refused here, before anything is written, with a path that never holds the number.
 */
import { fieldError, findAp2CardNumber, maskLongDigitRuns, type Ap2VerifyOptions, type VerifiedAp2 } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { ap2ContentValidator } from './ap2-schemas.ts';

/** `validateContent` for verifyAp2Presentation when AAR_AP2_SCHEMA_DIR is set; nothing otherwise. */
export function validatedAgainstSchemas(ctx: AppContext): Pick<Ap2VerifyOptions, 'validateContent'> {
  const validateContent = ap2ContentValidator(ctx.config.ap2SchemaDir);
  return validateContent ? { validateContent } : {};
}

/** 400 `pan_refused` at `<prefix>/presentation/hops/<n>/payload/...` when a disclosed value holds a card number. */
export function refuseDisclosedCardNumber(verified: Pick<VerifiedAp2, 'hops'>, prefix: string): void {
  const at = findAp2CardNumber(verified);
  if (at === undefined) return;
  throw fieldError(
    'pan_refused',
    `${prefix}${maskLongDigitRuns(at)}`,
    'a mandate discloses a card number; aar takes mandates and card tokens, never card numbers',
  );
}
