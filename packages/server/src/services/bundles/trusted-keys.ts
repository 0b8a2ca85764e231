/**
 * The keys POST /v1/bundles/verify judges a bundle by. Its answer is signed by THIS service, so it may vouch only for
 * keys this service chose: its own published keys (current and retired), each with the validity period this service
 * recorded. A caller's `jwks` can only narrow that set (judge by the current key alone, say); it never widens it.
 * Attacker assumption: `jwks` is chosen by whoever calls: a key of their own (a bundle they signed themselves), a key
 * of theirs under one of our `kid`s, one of our keys with its `valid_until` dropped to hide a retirement, a key
 * repeated. The first two are refused naming the key; for the others only our own copy of the key is ever used.
 * To judge a bundle of another deployment against that deployment's JWKS, verify it offline (`aar verify-bundle
 * --jwks`, the SDKs): there the trust choice is the verifier's own, and no signature of ours vouches for it.
 */
import { fieldError, type Ed25519PublicJwk, type Jwks } from '@aar/core';

/** The supplied keys that are ours, as we publish them; refuses (422 naming `/jwks/keys/<i>`) any that is not. */
export function narrowToOwnKeys(own: Jwks, supplied: Jwks): Jwks {
  const chosen = new Set<Ed25519PublicJwk>();
  supplied.keys.forEach((key, i) => {
    const kid = (key as { kid?: unknown }).kid;
    const x = (key as { x?: unknown }).x;
    const match = own.keys.find((k) => k.kid !== undefined && k.kid === kid && k.x === x);
    if (match === undefined) {
      throw fieldError(
        'reference_invalid',
        `/jwks/keys/${i}`,
        'is not a key this service publishes (GET /.well-known/jwks.json): its answer vouches only for its own ' +
          'keys; verify a bundle of another deployment offline (`aar verify-bundle --jwks`)',
      );
    }
    chosen.add(match);
  });
  return { keys: own.keys.filter((k) => chosen.has(k)) };
}
