/**
 * Verifies a signed JSON document (CONTRACT section 4). Attacker assumption: `doc` is anything a peer sent, and
 * chooses `key_id` and `algorithm` freely. Defences (SECURITY.md): the key comes only from the caller's trusted set,
 * by exact `kid` match (a path-like or unknown id is just unknown, never fetched); the algorithm is the key's
 * (Ed25519), the document's `algorithm` must say so and is otherwise refused; the signature must be strict base64url
 * of exactly 64 bytes. Never throws: every failure is a result.
 * The key's validity window (`valid_from` / `valid_until`) is not judged here: it needs the document's own time,
 * which only the caller knows.
 */
import { tryDecodeBase64Url } from '../encoding/base64url.ts';
import { ed25519Verify } from './ed25519.ts';
import type { Ed25519PublicJwk, Jwks } from './ed25519-jwk.ts';
import { parsePublicEd25519Jwk } from './ed25519-jwk.ts';
import { signingBytes } from './sign-document.ts';

export type VerifyDocumentFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'unsupported_algorithm'
  | 'unknown_key'
  | 'invalid_key'
  | 'signature_mismatch';

export interface VerifyDocumentResult {
  valid: boolean;
  algorithm: 'ed25519';
  /** the document's `key_id`, when it is a string */
  key_id?: string;
  failure?: VerifyDocumentFailure;
}

/** The trusted keys: a JWKS, or a lookup by `kid` (which must only consult keys the caller trusts). */
export type TrustedKeys = Jwks | ((keyId: string) => Ed25519PublicJwk | undefined);

const SIGNATURE_MEMBERS: ReadonlySet<string> = new Set(['algorithm', 'key_id', 'signature']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lookUpKey(trusted: TrustedKeys, keyId: string): Ed25519PublicJwk | 'unknown_key' | 'invalid_key' {
  if (typeof trusted === 'function') {
    const key = trusted(keyId);
    return key === undefined ? 'unknown_key' : key;
  }
  const keys: unknown = isPlainObject(trusted) ? trusted.keys : undefined;
  if (!Array.isArray(keys)) return 'unknown_key';
  const matches = keys.filter((key: unknown) => isPlainObject(key) && key.kid === keyId) as Ed25519PublicJwk[];
  if (matches.length === 0) return 'unknown_key';
  // Two keys under one kid: the trusted set is ambiguous, and picking one would be a guess.
  return matches.length === 1 ? (matches[0] as Ed25519PublicJwk) : 'invalid_key';
}

export async function verifyDocument(doc: unknown, trusted: TrustedKeys): Promise<VerifyDocumentResult> {
  try {
    return await verify(doc, trusted);
  } catch {
    // Only hostile shapes get here (throwing getters, proxies); the outcome is a refusal either way.
    return { valid: false, algorithm: 'ed25519', failure: 'malformed_signature' };
  }
}

async function verify(doc: unknown, trusted: TrustedKeys): Promise<VerifyDocumentResult> {
  const fail = (failure: VerifyDocumentFailure, keyId?: string): VerifyDocumentResult =>
    keyId === undefined
      ? { valid: false, algorithm: 'ed25519', failure }
      : { valid: false, algorithm: 'ed25519', key_id: keyId, failure };

  if (!isPlainObject(doc) || !Object.hasOwn(doc, 'signature') || doc.signature === undefined) {
    return fail('missing_signature');
  }
  const signature = doc.signature;
  if (!isPlainObject(signature)) return fail('malformed_signature');
  const keyId = typeof signature.key_id === 'string' ? signature.key_id : undefined;
  // Members of `signature` are outside the signed bytes: an unknown one could only mislead a later reader.
  if (Object.keys(signature).some((name) => !SIGNATURE_MEMBERS.has(name))) return fail('malformed_signature', keyId);
  if (keyId === undefined || keyId.length === 0) return fail('malformed_signature');
  if (typeof signature.algorithm !== 'string') return fail('malformed_signature', keyId);
  if (signature.algorithm !== 'ed25519') return fail('unsupported_algorithm', keyId);
  const sigBytes = tryDecodeBase64Url(signature.signature);
  if (sigBytes === undefined || sigBytes.length !== 64) return fail('malformed_signature', keyId);

  let found: ReturnType<typeof lookUpKey>;
  try {
    found = lookUpKey(trusted, keyId);
  } catch {
    return fail('unknown_key', keyId);
  }
  if (found === 'unknown_key' || found === 'invalid_key') return fail(found, keyId);
  let jwk: Ed25519PublicJwk;
  try {
    jwk = parsePublicEd25519Jwk(found, '');
  } catch {
    return fail('invalid_key', keyId);
  }
  // A lookup function that answers with another key's JWK is a bug on the caller's side: do not trust its answer.
  if (jwk.kid !== undefined && jwk.kid !== keyId) return fail('invalid_key', keyId);
  const publicKey = tryDecodeBase64Url(jwk.x) as Uint8Array;

  let message: Uint8Array;
  try {
    message = signingBytes(doc);
  } catch {
    // No canonical form (a lone surrogate, say): no signature can cover it.
    return fail('signature_mismatch', keyId);
  }
  if (!(await ed25519Verify(publicKey, message, sigBytes))) return fail('signature_mismatch', keyId);
  return { valid: true, algorithm: 'ed25519', key_id: keyId };
}
