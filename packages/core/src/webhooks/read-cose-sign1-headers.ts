/**
 * The header parameters our COSE_Sign1 profile acts on, read per RFC 9052 section 3 and SECURITY.md "JOSE algorithm
 * confusion": the algorithm must be in the protected bucket (an unprotected `alg` could be swapped by anyone) and
 * must be EdDSA (-8); the key is found by `kid` in the receiver's trusted set, and its type (Ed25519) is what
 * verifies, whatever else the message claims. `crit` is refused: we understand no critical extension.
 */
import { tryUtf8Decode } from '../encoding/utf8.ts';
import { COSE_ALG_EDDSA, COSE_LABEL_ALG, COSE_LABEL_CRIT, COSE_LABEL_KID } from './cose-sign1.ts';
import type { CoseSign1 } from './decode-cose-sign1.ts';

export type CoseHeaderFailure =
  | 'cose_alg_not_protected'
  | 'cose_unsupported_alg'
  | 'cose_crit_unsupported'
  | 'cose_missing_kid'
  | 'cose_kid_not_protected'
  | 'cose_malformed';

export interface CoseSign1Headers {
  alg: typeof COSE_ALG_EDDSA;
  /** the `kid` as UTF-8 text: the key id looked up in the trusted set */
  keyId: string;
  kidProtected: boolean;
}

export type CoseHeadersResult =
  { ok: true; headers: CoseSign1Headers } | { ok: false; failure: CoseHeaderFailure; detail: string };

export interface ReadCoseHeadersOptions {
  /** refuse a `kid` carried only in the unprotected bucket (our webhook profile puts it in the protected one) */
  requireProtectedKid?: boolean;
}

export function readCoseSign1Headers(message: CoseSign1, options: ReadCoseHeadersOptions = {}): CoseHeadersResult {
  const fail = (failure: CoseHeaderFailure, detail: string): CoseHeadersResult => ({ ok: false, failure, detail });
  const { protectedHeader, unprotectedHeader } = message;
  if (unprotectedHeader.has(COSE_LABEL_ALG)) return fail('cose_alg_not_protected', 'alg is in the unprotected bucket');
  if (!protectedHeader.has(COSE_LABEL_ALG)) return fail('cose_alg_not_protected', 'no alg in the protected bucket');
  const alg = protectedHeader.get(COSE_LABEL_ALG);
  if (alg !== COSE_ALG_EDDSA) return fail('cose_unsupported_alg', `alg \`${String(alg).slice(0, 32)}\` is not -8`);
  if (protectedHeader.has(COSE_LABEL_CRIT) || unprotectedHeader.has(COSE_LABEL_CRIT)) {
    return fail('cose_crit_unsupported', 'crit names parameters this verifier does not understand');
  }
  const kidProtected = protectedHeader.has(COSE_LABEL_KID);
  const kid = kidProtected ? protectedHeader.get(COSE_LABEL_KID) : unprotectedHeader.get(COSE_LABEL_KID);
  if (kid === undefined) return fail('cose_missing_kid', 'no kid');
  if (!kidProtected && options.requireProtectedKid === true) {
    return fail('cose_kid_not_protected', 'kid is in the unprotected bucket');
  }
  if (!(kid instanceof Uint8Array) || kid.length === 0 || kid.length > 256) return fail('cose_malformed', 'bad kid');
  const keyId = tryUtf8Decode(kid);
  if (keyId === undefined) return fail('cose_malformed', 'kid is not utf-8');
  return { ok: true, headers: { alg: COSE_ALG_EDDSA, keyId, kidProtected } };
}
