import { fieldError } from '../errors/aar-error.ts';

const encoder = new TextEncoder();
// fatal: invalid UTF-8 is refused, never replaced by U+FFFD; ignoreBOM: a BOM stays in the text for the caller to see.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `String.prototype.isWellFormed` (ES2024): native, and constant-time on one-byte strings; absent on older runtimes. */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** True if `text` holds an unpaired UTF-16 surrogate (which has no UTF-8 encoding). */
export function hasLoneSurrogate(text: string): boolean {
  return isWellFormed === undefined ? scanForLoneSurrogate(text) : !isWellFormed.call(text);
}

function scanForLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return true;
    }
  }
  return false;
}

/**
 * UTF-8 bytes of `text`. Refuses lone surrogates with `invalid_request` (TextEncoder would write U+FFFD, so two
 * different strings would share bytes, and a signature over one would verify the other).
 */
export function utf8Encode(text: string): Uint8Array {
  if (hasLoneSurrogate(text)) throw fieldError('invalid_request', '', 'text holds a lone surrogate');
  return encoder.encode(text);
}

/** Decodes strict UTF-8 (no replacement characters, BOM kept); undefined if the bytes are not UTF-8. */
export function tryUtf8Decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Strict UTF-8; throws `invalid_request` naming `path` otherwise. */
export function utf8Decode(bytes: Uint8Array, path = ''): string {
  const text = tryUtf8Decode(bytes);
  if (text === undefined) throw fieldError('invalid_request', path, 'must be valid utf-8');
  return text;
}
