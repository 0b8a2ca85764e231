import { fieldError } from '../errors/aar-error.ts';
import { decodeBase64Digits, encodeBase64Digits } from './base64-alphabet.ts';

/** RFC 4648 section 5 base64url without padding, the form of JWK members and document signatures. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return encodeBase64Digits(bytes, 'url');
}

/** Strict: refuses padding, `+`, `/`, whitespace and non-zero trailing bits. Never throws. */
export function tryDecodeBase64Url(text: unknown): Uint8Array | undefined {
  return typeof text === 'string' ? decodeBase64Digits(text, 'url') : undefined;
}

/** Strict base64url; throws `invalid_request` naming `path` otherwise. */
export function decodeBase64Url(text: unknown, path = ''): Uint8Array {
  const bytes = tryDecodeBase64Url(text);
  if (bytes === undefined) throw fieldError('invalid_request', path, 'must be unpadded base64url');
  return bytes;
}
