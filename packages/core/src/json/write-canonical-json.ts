/**
 * The fast path of canonicalJson (canonical-json.ts), written by hand because the `canonicalize` package plus our
 * validation walk every value twice and JSON-quote every key and string one call at a time: on a decision record
 * (~4 KB) this is about 4x faster, and canonicalisation runs several times per authorize.
 *
 * INVARIANT: when this returns a string, it is exactly what the package path (validate, then `canonicalize`) returns
 * for the same value. So it only takes what needs no judgement: plain objects (prototype Object.prototype or null)
 * and arrays without `toJSON`, finite numbers, well-formed strings and keys, booleans and null, object members whose
 * value is undefined (omitted, as there). For anything else (a toJSON method, a class instance, undefined in an
 * array, a lone surrogate, deep or circular nesting, a throwing getter) it returns undefined, and the caller takes the
 * package path, which produces the result or the precise error. Pinned by test/json/write-canonical-json.test.ts.
 * RFC 8785: keys sorted by UTF-16 code units (Array.prototype.sort's default order), strings escaped as
 * JSON.stringify does, numbers in ECMAScript's shortest form (String(n), which writes -0 as 0).
 */
import { hasLoneSurrogate } from '../encoding/utf8.ts';

/** Deeper nesting goes to the package path, which tells circular references from deep values. */
const MAX_DEPTH = 256;
/** Quoted member names: the same few dozen recur in every document. Bounded; only short names are kept. */
const QUOTED_KEYS = new Map<string, string>();
const QUOTED_KEYS_LIMIT = 1024;
const QUOTED_KEY_MAX_LENGTH = 64;

/**
 * The RFC 8785 text of `value`, or undefined when the value is not plain JSON (see the invariant above).
 * `known`: objects whose text the caller already has (each exactly what this function returned for that very object,
 * unchanged since), written as that text instead of walked again; e.g. a signed document inside the record that
 * commits to it (signDocumentWithText).
 */
export function tryCanonicalJson(value: unknown, known?: ReadonlyMap<object, string>): string | undefined {
  try {
    return write(value, 0, known);
  } catch {
    // a getter or proxy that throws: the package path repeats the read and reports it
    return undefined;
  }
}

function write(value: unknown, depth: number, known: ReadonlyMap<object, string> | undefined): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (known !== undefined) {
    const text = known.get(value);
    if (text !== undefined) return text;
  }
  if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item = write(value[i], depth + 1, known);
      if (item === undefined) return undefined;
      out += i === 0 ? item : `,${item}`;
    }
    return `${out}]`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  // no slice or join: appending keeps V8's string ropes cheap until the one flatten at the end
  let out = '{';
  let separator = '';
  for (const key of keys) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    const name = quoteKey(key);
    if (name === undefined) return undefined;
    const text = write(member, depth + 1, known);
    if (text === undefined) return undefined;
    out += `${separator}${name}:${text}`;
    separator = ',';
  }
  return `${out}}`;
}

/**
 * The members of a plain object as `tryCanonicalJson` writes them, in its order: `[key, '"key":value']`, members
 * whose value is undefined left out, so `{` + the texts joined by `,` + `}` is `tryCanonicalJson(value)`. Undefined
 * exactly when that is. For a signed document: the texts of its unsigned members serve both the bytes signed and,
 * with the signature member inserted in key order, the text of the signed document.
 */
export function tryCanonicalMembers(value: object): Array<[string, string]> | undefined {
  try {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function' || Array.isArray(value)) return undefined;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return undefined;
    const keys = Object.keys(value);
    if (keys.length > 1) keys.sort();
    const members: Array<[string, string]> = [];
    for (const key of keys) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      const name = quoteKey(key);
      if (name === undefined) return undefined;
      const text = write(member, 1, undefined);
      if (text === undefined) return undefined;
      members.push([key, `${name}:${text}`]);
    }
    return members;
  } catch {
    return undefined;
  }
}

function quoteKey(key: string): string | undefined {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    quoted = quote(key);
    if (quoted === undefined) return undefined;
    if (QUOTED_KEYS.size < QUOTED_KEYS_LIMIT && key.length <= QUOTED_KEY_MAX_LENGTH) QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

function quote(text: string): string | undefined {
  if (hasLoneSurrogate(text)) return undefined;
  return needsEscape(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Whether JSON.stringify would escape anything in `text` (a quote, a backslash, a control character). */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return true;
  }
  return false;
}
