/**
 * Standard base64 for merkle/: hashes travel as canonical padded base64 (CONTRACT section 8). Delegates to the
 * shared strict codec, which accepts only the one canonical spelling of a byte string (no whitespace, exact padding,
 * zero pad bits), so a hash has exactly one spelling on the wire.
 */
import { encodeBase64 as encode, tryDecodeBase64 } from '../encoding/base64.ts';

export const encodeBase64: (bytes: Uint8Array) => string = encode;

/** The bytes of canonical standard base64 text, or undefined for anything else. */
export function decodeBase64(text: string): Uint8Array | undefined {
  return tryDecodeBase64(text);
}
