/**
 * COSE_Sign1 (RFC 9052 section 4.2) with EdDSA over Ed25519, written by hand on the `cbor2` codec: no maintained
 * JavaScript COSE library is isomorphic, strict and small, and this profile needs only one structure.
 * Encoding: `18([protected: bstr .cbor {1: -8, 4: kid}, unprotected: {}, payload: bstr, signature: bstr])`, the
 * protected map with its labels in ascending order (the preferred, deterministic encoding), the signature over
 * `Sig_structure = ["Signature1", protected, external_aad, payload]` (section 4.4). We always use an empty
 * external AAD.
 */
import { encode, Tag } from 'cbor2';
import { AarError } from '../errors/aar-error.ts';
import { utf8Encode } from '../encoding/utf8.ts';
import type { DocumentSigner } from '../signing/sign-document.ts';

export const COSE_SIGN1_TAG = 18;
/** COSE algorithm `EdDSA` (RFC 9053 section 2.2); with an OKP Ed25519 key it means Ed25519. */
export const COSE_ALG_EDDSA = -8;
/** Common header labels (RFC 9052 section 3.1). */
export const COSE_LABEL_ALG = 1;
export const COSE_LABEL_CRIT = 2;
export const COSE_LABEL_CONTENT_TYPE = 3;
export const COSE_LABEL_KID = 4;

const EMPTY = new Uint8Array(0);

/**
 * A plain Uint8Array view of `bytes`. cbor2 encodes a Node Buffer (a Uint8Array subclass) through its `toJSON` as a
 * map, not as a bstr; receivers hand us Buffers and Node signers return them, so every byte string is normalised
 * before it reaches the codec.
 */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(bytes) === Uint8Array.prototype
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The bytes a COSE_Sign1 signature covers. `protectedBytes` are the protected bucket exactly as sent. */
export function coseSigStructure(
  protectedBytes: Uint8Array,
  payload: Uint8Array,
  externalAad: Uint8Array = EMPTY,
): Uint8Array {
  return encode(['Signature1', plainBytes(protectedBytes), plainBytes(externalAad), plainBytes(payload)]);
}

/** The protected bucket of our profile: `{1: -8, 4: h'<UTF-8 of keyId>'}`. */
export function coseProtectedHeader(keyId: string): Uint8Array {
  return encode(
    new Map<number, number | Uint8Array>([
      [COSE_LABEL_ALG, COSE_ALG_EDDSA],
      [COSE_LABEL_KID, utf8Encode(keyId)],
    ]),
  );
}

/** A tagged COSE_Sign1 of `payload`, signed by `signer` (whose `keyId` becomes the protected `kid`). */
export async function signCoseSign1(payload: Uint8Array, signer: DocumentSigner): Promise<Uint8Array> {
  const protectedBytes = coseProtectedHeader(signer.keyId);
  const signature = await signer.sign(coseSigStructure(protectedBytes, plainBytes(payload)));
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new AarError('internal', 'the signer did not return a 64-byte ed25519 signature');
  }
  return encode(new Tag(COSE_SIGN1_TAG, [protectedBytes, new Map(), plainBytes(payload), plainBytes(signature)]));
}
