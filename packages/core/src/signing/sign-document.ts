/**
 * The one signature scheme for every signed JSON object (CONTRACT section 4): Ed25519 over the RFC 8785 canonical
 * JSON of the object with its `signature` member removed, carried as
 * `signature: { algorithm: "ed25519", key_id, signature: <base64url of 64 bytes> }`.
 */
import { AarError, fieldError } from '../errors/aar-error.ts';
import { encodeBase64Url } from '../encoding/base64url.ts';
import { canonicalBytes } from '../json/canonical-json.ts';

export interface DocumentSignature {
  algorithm: 'ed25519';
  /** `kid` of the public key in the issuer's JWKS, e.g. `ns:key:<name>` */
  key_id: string;
  /** base64url (no padding) of the 64-byte Ed25519 signature */
  signature: string;
}

/** Holds the private key (in process, a worker or an HSM): core only ever sees the signature it returns. */
export interface DocumentSigner {
  readonly keyId: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** The bytes a document signature covers: JCS of `doc` without its `signature` member. Throws `invalid_json`. */
export function signingBytes(doc: object): Uint8Array {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw fieldError('invalid_json', '', 'a signed document must be a json object');
  }
  const { signature: _signature, ...unsigned } = doc as { signature?: unknown };
  return canonicalBytes(unsigned);
}

/** Returns a copy of `doc` carrying a fresh signature (any previous `signature` member is replaced). */
export async function signDocument<T extends object>(
  doc: T,
  signer: DocumentSigner,
): Promise<T & { signature: DocumentSignature }> {
  const bytes = signingBytes(doc);
  const signature = await signer.sign(bytes);
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new AarError('internal', 'the signer did not return a 64-byte ed25519 signature');
  }
  const { signature: _previous, ...unsigned } = doc as T & { signature?: unknown };
  return {
    ...unsigned,
    signature: { algorithm: 'ed25519', key_id: signer.keyId, signature: encodeBase64Url(signature) },
  } as T & { signature: DocumentSignature };
}
