/**
 * The fixture template language (docs/conformance.md "Templates"), kept minimal:
 * - `"{{name.path.0}}"` as a whole string is replaced by the value itself (any JSON type);
 * - inside a longer string, each `{{…}}` is replaced by its text (strings, numbers and booleans only);
 * - `{ "$merge": [a, b, …] }` deep-merges objects left to right (later members win; arrays are replaced);
 * - `{ "$patch": [base, { "<json pointer>": value, … }] }` is `base` with the members at those pointers set (an
 *   existing member or array element is replaced, a missing object member added);
 * - `{ "$literal": x }` is `x`, untouched (a fixture that must send `{{` itself).
 * The first segment of a name is looked up by the caller (captures, variables, builtins such as `$run` or
 * `$now+60`); the rest walks object members and array indexes. Pure: time and randomness are the caller's.
 */
import { AarError } from '../errors/aar-error.ts';

/** Returns the value of a head name, or `undefined` when there is none (an error: templates never guess). */
export type TemplateLookup = (head: string) => unknown;

const WHOLE = /^\{\{\s*([^{}\s]+)\s*\}\}$/;
const PART = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const MAX_DEPTH = 64;

export function resolveTemplate(value: unknown, lookup: TemplateLookup, depth = 0): unknown {
  if (depth > MAX_DEPTH) throw new AarError('invalid_request', 'template nests too deeply');
  if (typeof value === 'string') return resolveString(value, lookup);
  if (Array.isArray(value)) return value.map((v) => resolveTemplate(v, lookup, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, '$literal')) return record.$literal;
  if (Object.hasOwn(record, '$merge')) {
    const parts = record.$merge;
    if (!Array.isArray(parts)) throw new AarError('invalid_request', '`$merge` must be an array');
    return parts.map((p) => resolveTemplate(p, lookup, depth + 1)).reduce(deepMerge, {});
  }
  if (Object.hasOwn(record, '$patch')) {
    const parts = record.$patch;
    if (!Array.isArray(parts) || parts.length !== 2)
      throw new AarError('invalid_request', '`$patch` must be [base, sets]');
    const base = structuredClone(resolveTemplate(parts[0], lookup, depth + 1));
    const sets = resolveTemplate(parts[1], lookup, depth + 1);
    if (typeof sets !== 'object' || sets === null)
      throw new AarError('invalid_request', '`$patch` sets must be an object');
    for (const [pointer, value] of Object.entries(sets)) setAtPointer(base, pointer, value);
    return base;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) out[k] = resolveTemplate(v, lookup, depth + 1);
  return out;
}

function setAtPointer(document: unknown, pointer: string, value: unknown): void {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = tokens.pop();
  if (!pointer.startsWith('/') || last === undefined)
    throw new AarError('invalid_request', `\`$patch\`: bad pointer \`${pointer}\``);
  let parent: unknown = document;
  for (const t of tokens) {
    parent =
      typeof parent === 'object' && parent !== null && Object.hasOwn(parent, t)
        ? (parent as Record<string, unknown>)[t]
        : undefined;
    if (parent === undefined) throw new AarError('invalid_request', `\`$patch\`: \`${pointer}\` is not there`);
  }
  if (typeof parent !== 'object' || parent === null)
    throw new AarError('invalid_request', `\`$patch\`: \`${pointer}\` is not there`);
  (parent as Record<string, unknown>)[last] = value;
}

/** Reads `name.path.0` through `lookup`; throws naming the expression when any part is missing. */
export function lookUpExpression(expression: string, lookup: TemplateLookup): unknown {
  const [head, ...path] = expression.split('.');
  let current = lookup(head ?? '');
  if (current === undefined) throw new AarError('invalid_request', `template variable \`${head}\` is not defined`);
  for (const segment of path) {
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(segment) && Number(segment) < current.length) {
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      throw new AarError('invalid_request', `template \`{{${expression}}}\`: \`${segment}\` is not there`);
    }
  }
  return current;
}

function resolveString(text: string, lookup: TemplateLookup): unknown {
  const whole = WHOLE.exec(text);
  if (whole) return lookUpExpression(whole[1] ?? '', lookup);
  if (!text.includes('{{')) return text;
  return text.replace(PART, (_, expression: string) => {
    const v = lookUpExpression(expression, lookup);
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw new AarError('invalid_request', `template \`{{${expression}}}\` inside a string must be a scalar`);
  });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(left: unknown, right: unknown): unknown {
  if (!isPlainObject(left) || !isPlainObject(right)) return right;
  const out: Record<string, unknown> = { ...left };
  for (const [k, v] of Object.entries(right)) out[k] = Object.hasOwn(out, k) ? deepMerge(out[k], v) : v;
  return out;
}
