/**
 * Verifies a tagged COSE_Sign1 with EdDSA over an Ed25519 key from the caller's trusted set: strict decoding
 * (decode-cose-sign1.ts), the header rules of read-cose-sign1-headers.ts, then core's strict Ed25519 verifier
 * (pinned to Wycheproof) over the Sig_structure with the caller's external AAD (empty unless given: a message
 * signed with another AAD fails). Never throws for anything in the message; a throwing resolver propagates.
 * Works for any COSE_Sign1 of this shape, ours or another implementation's (the cose-wg examples pass).
 */
import type { Ed25519VerifyFn } from '../http-signatures/verify-request-signature.ts';
import { ed25519Verify } from '../signing/ed25519.ts';
import { coseSigStructure } from './cose-sign1.ts';
import type { CoseDecodeFailure, CoseSign1 } from './decode-cose-sign1.ts';
import { decodeCoseSign1 } from './decode-cose-sign1.ts';
import type { CoseHeaderFailure } from './read-cose-sign1-headers.ts';
import { readCoseSign1Headers } from './read-cose-sign1-headers.ts';
import type { WebhookKeyResolver } from './resolve-trusted-key.ts';
import { resolveTrustedKey } from './resolve-trusted-key.ts';

export type CoseVerifyFailure =
  CoseDecodeFailure | CoseHeaderFailure | 'unknown_key' | 'invalid_key' | 'cose_signature_invalid';

export interface VerifyCoseSign1Options {
  resolveKey: WebhookKeyResolver;
  /** default empty: our profile never uses external AAD */
  externalAad?: Uint8Array;
  requireProtectedKid?: boolean;
  ed25519Verify?: Ed25519VerifyFn;
}

export interface CoseSign1VerificationResult {
  valid: boolean;
  code?: CoseVerifyFailure;
  detail?: string;
  /** the `kid` as text, once the headers were read */
  key_id?: string;
  /** the verified payload; only when `valid` */
  payload?: Uint8Array;
  /** the decoded message; only when `valid` */
  message?: CoseSign1;
}

export async function verifyCoseSign1(
  bytes: Uint8Array,
  options: VerifyCoseSign1Options,
): Promise<CoseSign1VerificationResult> {
  const decoded = decodeCoseSign1(bytes);
  if (!decoded.ok) return { valid: false, code: decoded.failure, detail: decoded.detail };
  const read = readCoseSign1Headers(decoded.message, { requireProtectedKid: options.requireProtectedKid === true });
  if (!read.ok) return { valid: false, code: read.failure, detail: read.detail };
  const keyId = read.headers.keyId;
  const key = await resolveTrustedKey(options.resolveKey, keyId);
  if (!key.ok) return { valid: false, code: key.failure, key_id: keyId };
  const { protectedBytes, payload, signature } = decoded.message;
  const toBeSigned = coseSigStructure(protectedBytes, payload, options.externalAad ?? new Uint8Array(0));
  const verify = options.ed25519Verify ?? ed25519Verify;
  if (!(await verify(key.publicKey, toBeSigned, signature))) {
    return { valid: false, code: 'cose_signature_invalid', key_id: keyId };
  }
  return { valid: true, key_id: keyId, payload, message: decoded.message };
}
