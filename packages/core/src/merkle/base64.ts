/**
 * Standard base64 (RFC 4648 section 4, with padding), written by hand and private to merkle/: core has no Buffer,
 * and `atob` is lenient (it skips whitespace and accepts missing padding). A shared encoding module will replace it.
 * Attacker assumption: the text comes from the network. Decoding accepts only the one canonical encoding of a byte
 * string (no whitespace, exact padding, zero pad bits), so a hash has exactly one spelling on the wire.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const VALUES: ReadonlyMap<string, number> = new Map([...ALPHABET].map((char, value) => [char, value]));

export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] ?? 0;
    const b1 = bytes[i + 1] ?? 0;
    const b2 = bytes[i + 2] ?? 0;
    const triple = (b0 << 16) | (b1 << 8) | b2;
    out += ALPHABET[(triple >> 18) & 63];
    out += ALPHABET[(triple >> 12) & 63];
    out += i + 1 < bytes.length ? ALPHABET[(triple >> 6) & 63] : '=';
    out += i + 2 < bytes.length ? ALPHABET[triple & 63] : '=';
  }
  return out;
}

/** The bytes of canonical standard base64 text, or undefined for anything else. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    let triple = 0;
    for (let j = 0; j < 4; j++) {
      const char = text[i + j] as string;
      const padded = last && j >= 4 - padding;
      const value = padded ? (char === '=' ? 0 : undefined) : VALUES.get(char);
      if (value === undefined) return undefined;
      triple = (triple << 6) | value;
    }
    // Non-canonical: the bits dropped by the padding must be zero.
    const dropped = last ? (padding === 2 ? 0xffff : padding === 1 ? 0xff : 0) : 0;
    if ((triple & dropped) !== 0) return undefined;
    out[o++] = (triple >> 16) & 0xff;
    if (o < out.length) out[o++] = (triple >> 8) & 0xff;
    if (o < out.length) out[o++] = triple & 0xff;
  }
  return out;
}
