/**
 * The chain-level rules over the mandate contents of every hop (hand-written: AP2 semantics, no library has them).
 * - A chain may re-delegate an open mandate (an agent narrowing it for a sub-agent, AP2 multi-hop chains): every
 *   mandate is kept in chain order (VerifiedAp2.mandates); `open` / `closed` name the first of each type. What they
 *   allow together is ap2MandateToScope's question (every open mandate of a type applies: the intersection).
 * - Checkout <-> payment bindings, wherever both sides are in the chain (AP2 checkout_mandate.md, payment_mandate.md):
 *   a closed checkout's `checkout_hash` is the SHA-256 of its disclosed `checkout_jwt`; a closed payment's
 *   `transaction_id` is that same hash. A mismatch is a hash binding that fails: `sd_hash_mismatch`.
 *   An open payment's `payment.reference.conditional_transaction_id` names the open checkout SD-JWT, a different
 *   presentation: it is recorded (ap2MandateToScope), not checked here.
 */
import { mandateDigest } from './mandate-digest.ts';
import type { Ap2Mandate, MandateError, VerifiedAp2 } from './mandate-types.ts';

/** The first mandate of each type in chain order (the user-approved one); every one is in VerifiedAp2.mandates. */
export function classifyMandates(mandates: readonly Ap2Mandate[]): Pick<VerifiedAp2, 'open' | 'closed'> {
  const open: VerifiedAp2['open'] = {};
  const closed: VerifiedAp2['closed'] = {};
  for (const mandate of mandates) {
    if (mandate.vct === 'mandate.payment.open.1') open.payment ??= mandate;
    else if (mandate.vct === 'mandate.checkout.open.1') open.checkout ??= mandate;
    else if (mandate.vct === 'mandate.payment.1') closed.payment ??= mandate;
    else closed.checkout ??= mandate;
  }
  return { open, closed };
}

export function checkBindings(closed: VerifiedAp2['closed'], errors: MandateError[]): void {
  const checkout = closed.checkout;
  if (checkout !== undefined) {
    const { checkout_hash: hash, checkout_jwt: jwt } = checkout.content;
    if (typeof hash !== 'string') {
      errors.push({ path: `${checkout.path}/checkout_hash`, code: 'schema_invalid', detail: 'must be a string' });
    } else if (typeof jwt === 'string' && mandateDigest(jwt) !== hash) {
      errors.push({
        path: `${checkout.path}/checkout_hash`,
        code: 'sd_hash_mismatch',
        detail: 'is not the SHA-256 of the disclosed checkout_jwt',
      });
    }
  }
  const payment = closed.payment;
  if (payment !== undefined && checkout !== undefined) {
    if (payment.content.transaction_id !== checkout.content.checkout_hash) {
      errors.push({
        path: `${payment.path}/transaction_id`,
        code: 'sd_hash_mismatch',
        detail: `is not the checkout_hash of the closed checkout mandate (${checkout.path})`,
      });
    }
  }
}
