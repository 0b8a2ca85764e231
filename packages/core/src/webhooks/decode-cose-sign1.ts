/**
 * Strict decoding of a tagged COSE_Sign1 (RFC 9052), on `cbor2`. Attacker assumption: every byte is hostile.
 * Refused: anything but exactly one CBOR item (trailing bytes), indefinite-length items, non-preferred integer or
 * length encodings (so each message has one encoding), duplicate map keys, simple values other than true, false
 * and null, tags other than the outer 18 (no tag is decoded into a Date, URL or RegExp: `ignoreGlobalTags`), more
 * than 16 levels of nesting, a missing or other outer tag (untagged COSE_Sign1 is refused: `application/cose`
 * carries the tag), a detached payload, labels that are not integers or text, and a label in both buckets.
 * The protected bucket is kept as the bytes received, because the signature covers those bytes; an empty protected
 * map may arrive as `h''` or `h'a0'` (RFC 9052 section 3: recipients must accept both) and decodes to an empty map.
 */
import { decode, Tag } from 'cbor2';
import { COSE_SIGN1_TAG, plainBytes } from './cose-sign1.ts';

export type CoseLabel = number | string;
export type CoseHeaderMap = ReadonlyMap<CoseLabel, unknown>;

export interface CoseSign1 {
  /** the protected bucket as received (what the signature covers) */
  protectedBytes: Uint8Array;
  protectedHeader: CoseHeaderMap;
  unprotectedHeader: CoseHeaderMap;
  payload: Uint8Array;
  signature: Uint8Array;
}

export type CoseDecodeFailure = 'cose_malformed' | 'cose_wrong_tag' | 'cose_detached_payload' | 'cose_duplicate_label';

export type CoseDecodeResult =
  { ok: true; message: CoseSign1 } | { ok: false; failure: CoseDecodeFailure; detail: string };

const STRICT = {
  rejectDuplicateKeys: true,
  rejectStreaming: true,
  requirePreferred: true,
  rejectSimple: true,
  rejectUndefined: true,
  ignoreGlobalTags: true,
  preferMap: true,
  maxDepth: 16,
} as const;

function fail(failure: CoseDecodeFailure, detail: string): CoseDecodeResult {
  return { ok: false, failure, detail };
}

function strictDecode(bytes: Uint8Array): { value: unknown } | { error: string } {
  if (bytes.length === 0) return { error: 'no cbor item' };
  try {
    // A Buffer in gives Buffers out, which cbor2 would not re-encode as byte strings: decode a plain view.
    return { value: decode(plainBytes(bytes), STRICT) };
  } catch (error) {
    return { error: error instanceof Error ? error.message.slice(0, 120) : 'not cbor' };
  }
}

/** A header bucket as a map of int or text labels; undefined if any label is of another type. */
function headerMap(value: unknown): Map<CoseLabel, unknown> | undefined {
  if (!(value instanceof Map)) return undefined;
  for (const label of value.keys()) {
    const ok = (typeof label === 'number' && Number.isSafeInteger(label)) || typeof label === 'string';
    if (!ok) return undefined;
  }
  return value as Map<CoseLabel, unknown>;
}

export function decodeCoseSign1(bytes: Uint8Array): CoseDecodeResult {
  if (!(bytes instanceof Uint8Array)) return fail('cose_malformed', 'the body is not bytes');
  const outer = strictDecode(bytes);
  if ('error' in outer) return fail('cose_malformed', outer.error);
  if (!(outer.value instanceof Tag)) return fail('cose_wrong_tag', 'not a tagged cose message');
  if (outer.value.tag !== COSE_SIGN1_TAG) return fail('cose_wrong_tag', `tag \`${String(outer.value.tag)}\``);
  const parts: unknown = outer.value.contents;
  if (!Array.isArray(parts) || parts.length !== 4) return fail('cose_malformed', 'cose_sign1 is an array of 4');
  const [protectedBytes, unprotected, payload, signature] = parts as unknown[];
  if (!(protectedBytes instanceof Uint8Array)) return fail('cose_malformed', 'the protected bucket is not a bstr');
  if (payload === null) return fail('cose_detached_payload', 'the payload is detached');
  if (!(payload instanceof Uint8Array)) return fail('cose_malformed', 'the payload is not a bstr');
  if (!(signature instanceof Uint8Array)) return fail('cose_malformed', 'the signature is not a bstr');
  const unprotectedHeader = headerMap(unprotected);
  if (unprotectedHeader === undefined) return fail('cose_malformed', 'the unprotected bucket is not a header map');

  let protectedHeader: Map<CoseLabel, unknown> | undefined = new Map();
  if (protectedBytes.length > 0) {
    const inner = strictDecode(protectedBytes);
    if ('error' in inner) return fail('cose_malformed', `protected bucket: ${inner.error}`);
    protectedHeader = headerMap(inner.value);
    if (protectedHeader === undefined) return fail('cose_malformed', 'the protected bucket is not a header map');
  }
  for (const label of unprotectedHeader.keys()) {
    if (protectedHeader.has(label)) return fail('cose_duplicate_label', `label \`${String(label)}\` in both buckets`);
  }
  return { ok: true, message: { protectedBytes, protectedHeader, unprotectedHeader, payload, signature } };
}
