/**
 * Base64 (RFC 4648 sections 4 and 5) by hand: core runs in browsers and Node 20 alike, without Buffer, and
 * `atob` is lenient (whitespace, missing padding, non-zero trailing bits), so a signature or hash would have many
 * spellings. Decoding here is canonical: exactly one string decodes to given bytes.
 */
const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export type Base64Alphabet = 'standard' | 'url';

function lookup(alphabet: string): Int8Array {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}

const TABLES: Record<Base64Alphabet, Int8Array> = { standard: lookup(STANDARD), url: lookup(URL_SAFE) };
const CHARS: Record<Base64Alphabet, string> = { standard: STANDARD, url: URL_SAFE };

/** Unpadded encoding; the caller adds padding where its form needs it. */
export function encodeBase64Digits(bytes: Uint8Array, alphabet: Base64Alphabet): string {
  const chars = CHARS[alphabet];
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += chars[n >> 18]! + chars[(n >> 12) & 63]! + chars[(n >> 6) & 63]! + chars[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += chars[n >> 18]! + chars[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += chars[n >> 18]! + chars[(n >> 12) & 63]! + chars[(n >> 6) & 63]!;
  }
  return out;
}

/**
 * Decodes unpadded base64 digits; undefined unless every character is in the alphabet, the length is possible
 * (not 1 mod 4) and the unused trailing bits are zero.
 */
export function decodeBase64Digits(text: string, alphabet: Base64Alphabet): Uint8Array | undefined {
  const table = TABLES[alphabet];
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const v = code < 128 ? (table[code] as number) : -1;
    if (v < 0) return undefined;
    buffer = ((buffer << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}
