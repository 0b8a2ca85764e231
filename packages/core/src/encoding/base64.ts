import { fieldError } from '../errors/aar-error.ts';
import { decodeBase64Digits, encodeBase64Digits } from './base64-alphabet.ts';

/** RFC 4648 section 4 base64 with padding, the form of audit hashes (CONTRACT section 8). */
export function encodeBase64(bytes: Uint8Array): string {
  const digits = encodeBase64Digits(bytes, 'standard');
  return digits + '='.repeat((4 - (digits.length % 4)) % 4);
}

/** Strict: padding required and exact, no `-`, `_` or whitespace, zero trailing bits. Never throws. */
export function tryDecodeBase64(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 4 !== 0) return undefined;
  const digits = text.replace(/={1,2}$/, '');
  // Padding must be exactly what the digit count requires: `AA==` yes, `AAA==` / `AA=` no (the latter fail % 4).
  if ((4 - (digits.length % 4)) % 4 !== text.length - digits.length) return undefined;
  return decodeBase64Digits(digits, 'standard');
}

/** Strict padded base64; throws `invalid_request` naming `path` otherwise. */
export function decodeBase64(text: unknown, path = ''): Uint8Array {
  const bytes = tryDecodeBase64(text);
  if (bytes === undefined) throw fieldError('invalid_request', path, 'must be padded base64');
  return bytes;
}
