/**
 * JWS verification of one AP2 hop, with jose. Only ES256, ES384 and EdDSA are accepted: `none`, HMAC (a public key
 * used as a shared secret) and every other `alg` are refused before any key is touched.
 * Hop 0's key comes ONLY from the configured issuers (DESIGN-29 section 7, SECURITY: "never a key the message
 * names"): by the payload's `iss` when present (then the header `kid` narrows that issuer's keys), else by the
 * header `kid` across every configured issuer. A header `jwk`, `x5c`, `jku`, `x5u` or a payload `cnf` is never a
 * source of hop 0's key. A hop n > 0 is verified against the `cnf.jwk` keys the previous hop disclosed.
 * Attacker assumption: header, payload and keys in the token are hostile; configured keys are trusted but may be
 * private JWKs by mistake (only their public members are imported).
 */
import { calculateJwkThumbprint, compactVerify, importJWK, type JWK } from 'jose';
import type { Ap2TrustedIssuer } from './mandate-types.ts';

export const ALLOWED_ALGS: readonly string[] = ['ES256', 'ES384', 'EdDSA'];

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'] as const;

/** The public members of a JWK-shaped value, or undefined when it is not an object with a string `kty`. */
export function publicJwk(value: unknown): JWK | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const source = value as Record<string, unknown>;
  if (typeof source.kty !== 'string') return undefined;
  const jwk: Record<string, unknown> = {};
  for (const member of PUBLIC_MEMBERS) if (typeof source[member] === 'string') jwk[member] = source[member];
  return jwk as JWK;
}

/** True when `jws` verifies under `jwk` with `alg` (which the caller already checked is allowed). Never throws. */
export async function verifiesWith(jws: string, jwk: JWK, alg: string): Promise<boolean> {
  // a key that declares its algorithm is used with that one only (`Ed25519` is EdDSA's fully specified name)
  if (typeof jwk.alg === 'string' && jwk.alg !== alg && !(alg === 'EdDSA' && jwk.alg === 'Ed25519')) return false;
  try {
    const key = await importJWK({ ...jwk, alg }, alg);
    await compactVerify(jws, key, { algorithms: [alg] });
    return true;
  } catch {
    return false;
  }
}

export interface IssuerCandidates {
  /** the configured issuer name per candidate key */
  candidates: Array<{ issuer: string; key: JWK }>;
  /** why there is none (for issuer_key_unknown) */
  reason?: string;
}

/** The configured keys that may have signed hop 0, by `iss` and `kid` (see the file comment). */
export function issuerCandidates(
  issuers: ReadonlyArray<Ap2TrustedIssuer>,
  iss: unknown,
  kid: unknown,
): IssuerCandidates {
  const kidText = typeof kid === 'string' ? kid : undefined;
  if (iss !== undefined) {
    if (typeof iss !== 'string') return { candidates: [], reason: '`iss` is not a string' };
    const configured = issuers.filter((entry) => entry.issuer === iss);
    if (configured.length === 0) return { candidates: [], reason: `the issuer \`${iss}\` is not configured` };
    const candidates = configured.flatMap((entry) =>
      entry.keys
        .filter((key) => kidText === undefined || key.kid === undefined || key.kid === kidText)
        .map((key) => ({ issuer: entry.issuer, key })),
    );
    return candidates.length > 0
      ? { candidates }
      : { candidates, reason: `no key of the issuer \`${iss}\` has the kid \`${kidText ?? ''}\`` };
  }
  if (kidText === undefined) {
    return { candidates: [], reason: 'hop 0 names neither `iss` nor a header `kid` of a configured issuer' };
  }
  const candidates = issuers.flatMap((entry) =>
    entry.keys.filter((key) => key.kid === kidText).map((key) => ({ issuer: entry.issuer, key })),
  );
  return candidates.length > 0
    ? { candidates }
    : { candidates, reason: `no configured issuer has a key with the kid \`${kidText}\`` };
}

/** RFC 7638 SHA-256 thumbprint of a public key (base64url), or undefined for a key jose cannot thumbprint. */
export async function thumbprint(jwk: JWK): Promise<string | undefined> {
  try {
    return await calculateJwkThumbprint(jwk, 'sha256');
  } catch {
    return undefined;
  }
}
