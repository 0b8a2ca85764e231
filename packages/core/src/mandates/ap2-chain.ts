/**
 * The chain-level rules over the mandate contents of every hop (hand-written: AP2 semantics, no library has them).
 * - At most one mandate of each of the four types in a chain: a re-delegated open mandate (an agent narrowing an
 *   open mandate for a sub-agent) would need its own subset check against its parent, which aar does not make, so it
 *   is refused (`unsupported_constraint`) rather than read as either one.
 * - Checkout <-> payment bindings, wherever both sides are in the chain (AP2 checkout_mandate.md, payment_mandate.md):
 *   a closed checkout's `checkout_hash` is the SHA-256 of its disclosed `checkout_jwt`; a closed payment's
 *   `transaction_id` is that same hash. A mismatch is a hash binding that fails: `sd_hash_mismatch`.
 *   An open payment's `payment.reference.conditional_transaction_id` names the open checkout SD-JWT, a different
 *   presentation: it is recorded (ap2MandateToScope), not checked here.
 */
import { mandateDigest } from './mandate-digest.ts';
import type { Ap2Mandate, MandateError, VerifiedAp2 } from './mandate-types.ts';

export function classifyMandates(
  mandates: readonly Ap2Mandate[],
  errors: MandateError[],
): Pick<VerifiedAp2, 'open' | 'closed'> {
  const open: VerifiedAp2['open'] = {};
  const closed: VerifiedAp2['closed'] = {};
  for (const mandate of mandates) {
    const [side, kind] =
      mandate.vct === 'mandate.payment.open.1'
        ? ([open, 'payment'] as const)
        : mandate.vct === 'mandate.checkout.open.1'
          ? ([open, 'checkout'] as const)
          : mandate.vct === 'mandate.payment.1'
            ? ([closed, 'payment'] as const)
            : ([closed, 'checkout'] as const);
    const first = side[kind];
    if (first !== undefined) {
      errors.push({
        path: mandate.path,
        code: 'unsupported_constraint',
        detail: `a second \`${mandate.vct}\` in the chain (the first is ${first.path}): re-delegated mandates are not supported`,
      });
      continue;
    }
    side[kind] = mandate;
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
