/**
 * Card numbers in mandate bodies and mandate contents (core's PAN detector, packages/core/src/pan): aar takes the
 * mandate or the allowance, never the card. An ACP body with a `payment_method` holding a number, or an AP2 mandate
 * content disclosing one (a careless issuer writing a full PAN as a payment instrument id or description), must be
 * refused (`pan_refused`) before anything is stored: the stored document is the presentation as submitted.
 * Only disclosed values can be read; an undisclosed digest hides its value from aar as from everyone else.
 * INVARIANT: the digits never leave this module: callers get a JSON pointer, never the number.
 */
import { findPan } from '../pan/find-pan.ts';
import type { VerifiedAp2 } from './mandate-types.ts';

/** True when any string, number or member name inside `value` holds a card number (12-19 digits passing Luhn). */
export function containsCardNumber(value: unknown): boolean {
  return findPan(value) !== undefined;
}

/** The JSON pointer of the first card number among the disclosed claims of a verified chain, or undefined. */
export function findAp2CardNumber(v: Pick<VerifiedAp2, 'hops'>): string | undefined {
  for (const hop of v.hops) {
    const at = findPan(hop.payload);
    if (at !== undefined) return `/presentation/hops/${hop.index}/payload${at}`;
  }
  return undefined;
}
