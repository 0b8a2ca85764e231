/**
 * RFC 8785 (JCS) canonical JSON, the bytes every signature in the project covers (CONTRACT section 4).
 * Serialisation is the `canonicalize` package; this file only decides what may be serialised, because the package
 * and JSON.stringify silently drop or rewrite what JCS cannot express (`undefined` in arrays becomes null,
 * functions vanish, bigint throws a TypeError, Map becomes `{}`). Object members whose value is `undefined` are
 * omitted, as JSON.stringify does, so optional fields may be left undefined.
 * Plain JSON values (nearly all of them) take a single-pass writer with the same output (write-canonical-json.ts);
 * everything else comes here, so refusals and their paths are this file's alone.
 */
import canonicalize from 'canonicalize';
import { AarError, fieldError } from '../errors/aar-error.ts';
import { hasLoneSurrogate, utf8Encode } from '../encoding/utf8.ts';
import { appendPointer } from './json-pointer.ts';
import { tryCanonicalJson } from './write-canonical-json.ts';

/** The RFC 8785 canonical JSON text of `value`; throws `invalid_json` naming the first value JSON cannot hold. */
export function canonicalJson(value: unknown): string {
  const fast = tryCanonicalJson(value);
  if (fast !== undefined) return fast;
  try {
    assertJsonValue(value, '', new Set());
    const text = canonicalize(value);
    if (text === undefined) throw fieldError('invalid_json', '', 'value has no json form');
    return text;
  } catch (error) {
    if (error instanceof AarError) throw error;
    // RangeError (nesting beyond the call stack) or an error thrown by a toJSON method or getter.
    throw new AarError('invalid_json', 'value cannot be canonicalised', { cause: error });
  }
}

/** UTF-8 bytes of `canonicalJson(value)`: what gets signed and hashed. */
export function canonicalBytes(value: unknown): Uint8Array {
  return utf8Encode(canonicalJson(value));
}

function assertJsonValue(value: unknown, path: string, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
      if (hasLoneSurrogate(value)) throw fieldError('invalid_json', path, 'string holds a lone surrogate');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw fieldError('invalid_json', path, 'number is not finite');
      return;
    case 'boolean':
      return;
    case 'object':
      break;
    default:
      throw fieldError('invalid_json', path, `a value of type \`${typeof value}\` has no json form`);
  }
  if (value === null) return;
  if (ancestors.has(value)) throw fieldError('invalid_json', path, 'circular reference');
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') {
    ancestors.add(value);
    assertJsonValue(toJson.call(value), path, ancestors);
    ancestors.delete(value);
    return;
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) assertJsonValue(value[i], appendPointer(path, i), ancestors);
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw fieldError('invalid_json', path, 'only plain objects and arrays have a json form');
    }
    for (const [key, member] of Object.entries(value)) {
      const memberPath = appendPointer(path, key);
      if (hasLoneSurrogate(key)) throw fieldError('invalid_json', memberPath, 'key holds a lone surrogate');
      if (member !== undefined) assertJsonValue(member, memberPath, ancestors);
    }
  }
  ancestors.delete(value);
}
