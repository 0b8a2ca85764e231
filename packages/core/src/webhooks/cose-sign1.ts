/**
 * COSE_Sign1 (RFC 9052 section 4.2) with EdDSA over Ed25519, written by hand on the `cbor2` codec: no maintained
 * JavaScript COSE library is isomorphic, strict and small, and this profile needs only one structure.
 * Encoding: `18([protected: bstr .cbor {1: -8, 4: kid}, unprotected: {}, payload: bstr, signature: bstr])`, the
 * protected map with its labels in ascending order (the preferred, deterministic encoding), the signature over
 * `Sig_structure = ["Signature1", protected, external_aad, payload]` (section 4.4). We always use an empty
 * external AAD.
 * The three fixed structures are written byte by byte (cbor2's general encoder costs ~50 us a call, more than the
 * Ed25519 signature): definite lengths, shortest heads, exactly what cbor2 writes for them (test: cose-encoding).
 * Decoding stays cbor2's, strict.
 */
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
/** `"Signature1"` as a CBOR text string (head 0x6a: major type 3, length 10) */
const SIGNATURE1 = Uint8Array.of(0x6a, ...utf8Encode('Signature1'));

/** The head of a CBOR item of `major` type and `length` (RFC 8949 section 3), in its shortest form. */
function head(major: number, length: number): Uint8Array {
  const m = major << 5;
  if (length < 24) return Uint8Array.of(m | length);
  if (length < 0x100) return Uint8Array.of(m | 24, length);
  if (length < 0x10000) return Uint8Array.of(m | 25, length >>> 8, length & 0xff);
  if (length <= 0xffffffff) {
    return Uint8Array.of(m | 26, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff);
  }
  throw new AarError('internal', 'a COSE item longer than 4 GiB');
}

/** Concatenates CBOR pieces; byte strings (`bstr: true`) get their head. */
function cbor(parts: ReadonlyArray<Uint8Array | { bstr: Uint8Array }>): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (const part of parts) {
    if (part instanceof Uint8Array) pieces.push(part);
    else pieces.push(head(2, part.bstr.length), part.bstr);
  }
  let size = 0;
  for (const p of pieces) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

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
  // array(4) ["Signature1", bstr protected, bstr external_aad, bstr payload]
  return cbor([Uint8Array.of(0x84), SIGNATURE1, { bstr: protectedBytes }, { bstr: externalAad }, { bstr: payload }]);
}

/** The protected bucket of our profile: `{1: -8, 4: h'<UTF-8 of keyId>'}`. */
export function coseProtectedHeader(keyId: string): Uint8Array {
  // map(2) {1: -8, 4: bstr kid}: -8 is major type 1 (negative), argument 7
  return cbor([
    Uint8Array.of(0xa2, COSE_LABEL_ALG, 0x20 | (-1 - COSE_ALG_EDDSA), COSE_LABEL_KID),
    { bstr: utf8Encode(keyId) },
  ]);
}

/** A tagged COSE_Sign1 of `payload`, signed by `signer` (whose `keyId` becomes the protected `kid`). */
export async function signCoseSign1(payload: Uint8Array, signer: DocumentSigner): Promise<Uint8Array> {
  const protectedBytes = coseProtectedHeader(signer.keyId);
  const signature = await signer.sign(coseSigStructure(protectedBytes, plainBytes(payload)));
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new AarError('internal', 'the signer did not return a 64-byte ed25519 signature');
  }
  // tag 18 (0xd2), array(4) [bstr protected, map(0) unprotected, bstr payload, bstr signature]
  return cbor([
    Uint8Array.of(0xc0 | COSE_SIGN1_TAG, 0x84),
    { bstr: protectedBytes },
    Uint8Array.of(0xa0),
    { bstr: payload },
    { bstr: signature },
  ]);
}
