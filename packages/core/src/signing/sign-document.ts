/**
 * The one signature scheme for every signed JSON object (CONTRACT section 4): Ed25519 over the RFC 8785 canonical
 * JSON of the object with its `signature` member removed, carried as
 * `signature: { algorithm: "ed25519", key_id, signature: <base64url of 64 bytes> }`.
 */
import { AarError, fieldError } from '../errors/aar-error.ts';
import { encodeBase64Url } from '../encoding/base64url.ts';
import { utf8Encode } from '../encoding/utf8.ts';
import { canonicalBytes, canonicalJson } from '../json/canonical-json.ts';
import { tryCanonicalJson, tryCanonicalMembers } from '../json/write-canonical-json.ts';

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
  return withSignature(doc, signer.keyId, await signatureOver(signingBytes(doc), signer));
}

/**
 * `signDocument`, and the RFC 8785 text of the signed document, `canonicalJson(document)`, for a caller that
 * canonicalises it next (a decision record holds its signed decision map): the unsigned members are written once,
 * for the bytes signed and, with the signature member inserted in key order, for the text (RFC 8785 orders an
 * object's members by key and nothing else, so the text of each member is the same in both).
 */
export async function signDocumentWithText<T extends object>(
  doc: T,
  signer: DocumentSigner,
): Promise<{ document: T & { signature: DocumentSignature }; text: string }> {
  const plain = typeof doc === 'object' && doc !== null && !Array.isArray(doc);
  const { signature: _previous, ...unsigned } = (plain ? doc : {}) as T & { signature?: unknown };
  const members = plain ? tryCanonicalMembers(unsigned) : undefined;
  if (members === undefined) {
    // not plain JSON: the general path, which signs it or throws exactly as signDocument does
    const document = await signDocument(doc, signer);
    return { document, text: canonicalJson(document) };
  }
  const bytes = utf8Encode(`{${members.map(([, text]) => text).join(',')}}`);
  const document = withSignature(doc, signer.keyId, await signatureOver(bytes, signer));
  const signatureText = tryCanonicalJson(document.signature);
  if (signatureText === undefined) return { document, text: canonicalJson(document) };
  // `<` compares UTF-16 code units, the order RFC 8785 (and Array.prototype.sort) puts keys in
  let at = members.findIndex(([key]) => SIGNATURE_KEY < key);
  if (at < 0) at = members.length;
  members.splice(at, 0, [SIGNATURE_KEY, `"${SIGNATURE_KEY}":${signatureText}`]);
  return { document, text: `{${members.map(([, text]) => text).join(',')}}` };
}

const SIGNATURE_KEY = 'signature';

async function signatureOver(bytes: Uint8Array, signer: DocumentSigner): Promise<Uint8Array> {
  const signature = await signer.sign(bytes);
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new AarError('internal', 'the signer did not return a 64-byte ed25519 signature');
  }
  return signature;
}

function withSignature<T extends object>(
  doc: T,
  keyId: string,
  signature: Uint8Array,
): T & { signature: DocumentSignature } {
  const { signature: _previous, ...unsigned } = doc as T & { signature?: unknown };
  return {
    ...unsigned,
    signature: { algorithm: 'ed25519', key_id: keyId, signature: encodeBase64Url(signature) },
  } as T & { signature: DocumentSignature };
}
