import { fieldError } from '../errors/aar-error.ts';

/** Lowercase hex. */
export function encodeHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** An even number of hex digits, either case; undefined otherwise. Never throws. */
export function tryDecodeHex(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Hex; throws `invalid_request` naming `path` otherwise. */
export function decodeHex(text: unknown, path = ''): Uint8Array {
  const bytes = tryDecodeHex(text);
  if (bytes === undefined) throw fieldError('invalid_request', path, 'must be hex');
  return bytes;
}
