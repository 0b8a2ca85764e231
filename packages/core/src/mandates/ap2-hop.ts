/**
 * Splitting an AP2 presentation into hops and decoding each hop with @sd-jwt/decode.
 * A presentation is one or more SD-JWTs joined by '~~' (Delegate SD-JWT: each key-binding JWT is itself an SD-JWT):
 * `hop0~d~d~` + `~` + `hop1~d~`. Hand-written here: only the '~~' split (the library reads one SD-JWT, whose
 * trailing key-binding JWT is a plain JWT) and a strict base64url check of every segment before the library reads it
 * (the library's decoder is lenient: it would read `+`, `/`, padding and stray characters).
 * Attacker assumption: the whole text is hostile; its size is bounded by the caller before this runs.
 * INVARIANT: a hop's `text` is exactly the bytes its successor's `sd_hash` covers: the hop with its trailing '~'.
 */
import { decodeJwt, decodeSdJwt } from '@sd-jwt/decode';
import { sha256 } from '@noble/hashes/sha2.js';
import { tryDecodeBase64Url } from '../encoding/base64url.ts';
import { tryUtf8Decode, utf8Encode } from '../encoding/utf8.ts';
import { isAarError } from '../errors/aar-error.ts';
import { parseStrictJson } from '../json/parse-strict-json.ts';
import { MAX_NESTING, type DisclosureLike } from './ap2-disclosures.ts';
import type { MandateError } from './mandate-types.ts';

/** At most this many hops (issuer, user device, agent, sub-agents...). */
export const MAX_HOPS = 8;

/** The hasher @sd-jwt/* calls; the verifier refuses every `_sd_alg` but sha-256 before it is used. */
export function sha256Hasher(data: string | ArrayBuffer, alg: string): Uint8Array {
  if (alg.toLowerCase() !== 'sha-256') throw new Error(`unsupported _sd_alg ${alg}`);
  return sha256(typeof data === 'string' ? utf8Encode(data) : new Uint8Array(data));
}

export interface SplitHop {
  index: number;
  text: string;
}

/** The hop texts, each ending with '~'; errors for a text that is not '~'-terminated or has too many hops. */
export function splitHops(presentation: string): { hops: SplitHop[]; errors: MandateError[] } {
  const errors: MandateError[] = [];
  if (!presentation.endsWith('~')) {
    errors.push({
      path: '/presentation',
      code: 'schema_invalid',
      detail: "truncated or not an AP2 presentation: every hop ends with '~' (SD-JWT without a trailing JWT)",
    });
  }
  const parts = presentation.split('~~');
  if (parts.length > MAX_HOPS) {
    errors.push({ path: '/presentation', code: 'schema_invalid', detail: `more than ${MAX_HOPS} hops` });
    return { hops: [], errors };
  }
  const hops = parts.map((part, index) => ({
    index,
    text: index < parts.length - 1 || !part.endsWith('~') ? `${part}~` : part,
  }));
  return { hops, errors };
}

export interface DecodedHop {
  jws: string;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  disclosures: DisclosureLike[];
  /** some disclosure segment was unreadable (reported): the others may reference digests only it held */
  incomplete: boolean;
  /** the library's Disclosure objects, for getClaims */
  libraryDisclosures: Awaited<ReturnType<typeof decodeSdJwt>>['disclosures'];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type JsonReading = { ok: true; value: unknown } | { ok: false; detail: string };

/**
 * A segment's JSON, read strictly before the library reads it with JSON.parse: no duplicate member names (JSON.parse
 * keeps the last one, other verifiers may keep the first), no `__proto__`, no number a double cannot hold exactly,
 * nesting bounded. Both readers then see the same value.
 */
function readSegment(encoded: string): JsonReading {
  const bytes = tryDecodeBase64Url(encoded);
  const text = bytes === undefined ? undefined : tryUtf8Decode(bytes);
  if (text === undefined) return { ok: false, detail: 'not base64url of UTF-8 text' };
  try {
    return { ok: true, value: parseStrictJson(text, { maxDepth: MAX_NESTING + 2 }) };
  } catch (error) {
    const first = isAarError(error) ? error.errors?.[0] : undefined;
    return { ok: false, detail: first ? `not strict JSON (${first.path || 'top'}: ${first.message})` : 'not JSON' };
  }
}

const BASE64URL = (text: string): boolean => text.length > 0 && tryDecodeBase64Url(text) !== undefined;

/**
 * Decodes one hop. Header and payload must be base64url JSON objects (else `schema_invalid`), the signature segment
 * base64url (else `signature_invalid`), each disclosure base64url of a JSON array of 2 or 3 items (else
 * `disclosure_digest_mismatch` naming it); `_sd_alg` absent or `sha-256` (else `disclosure_digest_mismatch`).
 */
export async function decodeHop(hop: SplitHop): Promise<{ decoded?: DecodedHop; errors: MandateError[] }> {
  const path = `/presentation/hops/${hop.index}`;
  const errors: MandateError[] = [];
  const segments = hop.text.split('~');
  const jws = segments[0] ?? '';
  const encodedDisclosures = segments.slice(1, -1);
  const parts = jws.split('.');
  if (parts.length !== 3 || !BASE64URL(parts[0] ?? '') || !BASE64URL(parts[1] ?? '')) {
    errors.push({ path: `${path}/jws`, code: 'schema_invalid', detail: 'not a compact JWS of base64url segments' });
    return { errors };
  }
  for (const [name, segment] of [
    ['header', parts[0]],
    ['payload', parts[1]],
  ] as const) {
    const reading = readSegment(segment ?? '');
    if (!reading.ok) {
      errors.push({ path: `${path}/jws`, code: 'schema_invalid', detail: `${name}: ${reading.detail}` });
      return { errors };
    }
  }
  let header: unknown;
  let payload: unknown;
  try {
    ({ header, payload } = decodeJwt(jws));
  } catch {
    errors.push({ path: `${path}/jws`, code: 'schema_invalid', detail: 'header or payload is not JSON' });
    return { errors };
  }
  if (!isObject(header) || !isObject(payload)) {
    errors.push({ path: `${path}/jws`, code: 'schema_invalid', detail: 'header and payload must be JSON objects' });
    return { errors };
  }
  if (!BASE64URL(parts[2] ?? '')) {
    errors.push({ path: `${path}/jws/signature`, code: 'signature_invalid', detail: 'signature is not base64url' });
  }
  if (payload._sd_alg !== undefined && payload._sd_alg !== 'sha-256') {
    errors.push({
      path: `${path}/payload/_sd_alg`,
      code: 'disclosure_digest_mismatch',
      detail: 'only sha-256 disclosure digests are supported',
    });
    return { errors };
  }
  const valid: Array<{ index: number; encoded: string }> = [];
  for (const [i, encoded] of encodedDisclosures.entries()) {
    const at = `${path}/disclosures/${i}`;
    if (!BASE64URL(encoded)) {
      errors.push({ path: at, code: 'disclosure_digest_mismatch', detail: 'not base64url' });
      continue;
    }
    const reading = readSegment(encoded);
    if (!reading.ok) {
      errors.push({ path: at, code: 'schema_invalid', detail: reading.detail });
      continue;
    }
    // the library reads any value with a `length` (a 2-character string is a "disclosure" to it)
    const item = reading.value;
    if (!Array.isArray(item) || (item.length !== 2 && item.length !== 3)) {
      errors.push({
        path: at,
        code: 'disclosure_digest_mismatch',
        detail: 'not a JSON array [salt, value] or [salt, name, value]',
      });
      continue;
    }
    valid.push({ index: i, encoded });
  }
  const disclosures: DisclosureLike[] = [];
  let libraryDisclosures: DecodedHop['libraryDisclosures'];
  try {
    // one library pass over the hop with the well-formed disclosures, in their order
    const text = `${jws}~${valid.map((d) => `${d.encoded}~`).join('')}`;
    libraryDisclosures = (await decodeSdJwt(text, sha256Hasher)).disclosures;
  } catch {
    errors.push({ path, code: 'schema_invalid', detail: 'the SD-JWT library cannot read this hop' });
    return { errors };
  }
  libraryDisclosures.forEach((disclosure, j) => {
    disclosures.push({
      salt: disclosure.salt,
      key: disclosure.key,
      value: disclosure.value,
      digest: disclosure._digest ?? '',
      index: valid[j]?.index ?? -1,
    });
  });
  const incomplete = valid.length < encodedDisclosures.length;
  return { decoded: { jws, header, payload, disclosures, incomplete, libraryDisclosures }, errors };
}
