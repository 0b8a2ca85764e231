/**
 * The shared shapes of mandate verification (DESIGN-29 section 7): the closed list of refusal codes, the error
 * triple `{ path, code, detail }` (path: an RFC 6901 JSON pointer into the request, e.g.
 * `/presentation/hops/1/disclosures/0`), and the verified AP2 chain handed to the store and the scope mapping.
 * INVARIANT: a detail never echoes a disclosure value, a key or a card number: only indices, claim names and codes.
 */
import type { JWK } from 'jose';

export type MandateErrorCode =
  | 'issuer_key_unknown'
  | 'signature_invalid'
  | 'disclosure_digest_mismatch'
  | 'sd_hash_mismatch'
  | 'key_binding_invalid'
  | 'expired'
  | 'audience_mismatch'
  | 'nonce_reused'
  | 'unsupported_vct'
  | 'unsupported_constraint'
  | 'not_subset'
  | 'schema_invalid';

export interface MandateError {
  path: string;
  code: MandateErrorCode;
  detail: string;
}

/** The four mandate content types of AP2 v0.2 (`vct` of a `delegate_payload` item). */
export const AP2_VCTS = [
  'mandate.payment.open.1',
  'mandate.payment.1',
  'mandate.checkout.open.1',
  'mandate.checkout.1',
] as const;
export type Ap2Vct = (typeof AP2_VCTS)[number];

/** One schema finding: `path` is a JSON pointer inside the mandate content (`""` for the content itself). */
export interface Ap2SchemaFinding {
  path: string;
  detail: string;
}

/**
 * Validates one disclosed mandate content against the AP2 JSON Schema of its `vct` (draft 2020-12). Injected, not
 * built in: core is isomorphic and carries no JSON Schema engine; the server passes an ajv 2020 one compiled from
 * the AP2 schemas. Returns the findings, empty when the content is valid.
 */
export type Ap2ContentValidator = (vct: Ap2Vct, content: Record<string, unknown>) => Ap2SchemaFinding[];

export interface Ap2TrustedIssuer {
  issuer: string;
  keys: JWK[];
}

export interface Ap2VerifyOptions {
  /** configured trusted issuers (keys from their JWKS): the ONLY source of hop 0's key */
  issuers: ReadonlyArray<Ap2TrustedIssuer>;
  nowSeconds: number;
  /** accepted `aud` of every key-binding hop */
  audiences: readonly string[];
  /**
   * default true; false: `aud` must still be a string but any value passes (an offline verifier of an evidence pack
   * does not know the deployment's audiences; the service checked them when it accepted the mandate)
   */
  checkAudience?: boolean;
  /** default 64 KiB (UTF-8 bytes of the whole presentation) */
  maxBytes?: number;
  /** default true; an offline re-verification of an old evidence pack passes false (no exp / iat check) */
  checkTime?: boolean;
  /** JSON Schema validation of each mandate content; absent: only the structural checks the verifier needs */
  validateContent?: Ap2ContentValidator;
}

/** One disclosed mandate content (a `delegate_payload` item with every disclosed `_sd` / `...` resolved). */
export interface Ap2Mandate {
  vct: Ap2Vct;
  /** hop index (0 = the issuer-signed SD-JWT) */
  hop: number;
  /** JSON pointer of the content: `/presentation/hops/<hop>/mandates/<i>` */
  path: string;
  content: Record<string, unknown>;
}

export interface Ap2Hop {
  index: number;
  typ: string;
  alg: string;
  /** the hop's JWT payload, every disclosed digest resolved */
  payload: Record<string, unknown>;
  /** disclosed delegate_payload items, `_sd` resolved (in hop order; unknown vct items are not listed) */
  mandates: Array<Record<string, unknown>>;
  /** the key the hop's signature verified against (undefined when it could not be verified) */
  signerKey?: JWK;
  nonce?: string;
  aud?: string;
  iat?: number;
  exp?: number;
  /** the hop's exact text, with its trailing `~` */
  text: string;
}

export interface Ap2Nonce {
  /** RFC 7638 thumbprint (SHA-256, base64url) of the key that signed the hop */
  keyThumbprint: string;
  nonce: string;
  /** the hop carrying it: a store that already holds hops 0..k of this chain checks only hops > k */
  hop: number;
}

export interface VerifiedAp2 {
  /** mandateDigest of the whole presentation as submitted */
  digest: string;
  /** the configured issuer whose key verified hop 0 (the token's own `iss` when none did) */
  issuer: string;
  hops: Ap2Hop[];
  /** everything before the last '~~' (ending with its '~') when the last hop holds only closed mandates */
  openPart?: string;
  /** every disclosed mandate content of a known vct, in chain order */
  mandates: Ap2Mandate[];
  /** the first mandate of each type (a re-delegated open mandate appears again, later, in `mandates`) */
  open: { payment?: Ap2Mandate; checkout?: Ap2Mandate };
  closed: { payment?: Ap2Mandate; checkout?: Ap2Mandate };
  /** the earliest `exp` of every hop and mandate content */
  expiresAt?: number;
  nonces: Ap2Nonce[];
}

export type Ap2VerifyResult =
  { ok: true; value: VerifiedAp2 } | { ok: false; errors: MandateError[]; partial?: VerifiedAp2 };
