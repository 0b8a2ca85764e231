/**
 * JSON pointer predicates of a fixture's expectation (docs/conformance.md "Expectations"): each names a pointer
 * into the response body and any number of tests, all of which must hold. Returns every failed test.
 */
import { describeJsonValue, jsonEqual, matchSubset, type Mismatch } from './match-subset.ts';
import { readPointer } from './read-pointer.ts';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

export interface PointerPredicate {
  pointer: string;
  /** true: the member is there; false: it is not */
  exists?: boolean;
  equals?: unknown;
  not_equals?: unknown;
  one_of?: unknown[];
  /** an ECMAScript regular expression the string value must match (unanchored unless it anchors itself) */
  matches?: string;
  type?: JsonType;
  /** the length of a string or array */
  length?: number;
  min_length?: number;
  max_length?: number;
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
  /** an array with at least one element that contains this (subset match) */
  contains?: unknown;
  /** an array none of whose elements contains this */
  not_contains?: unknown;
  /** the value contains this (subset match, as an expectation's `body`) */
  subset?: unknown;
}

export const PREDICATE_TESTS = [
  'exists',
  'equals',
  'not_equals',
  'one_of',
  'matches',
  'type',
  'length',
  'min_length',
  'max_length',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'not_contains',
  'subset',
] as const;

export function checkPredicate(document: unknown, predicate: PointerPredicate): Mismatch[] {
  const at = predicate.pointer;
  const read = readPointer(document, at);
  const fail = (message: string): Mismatch[] => [{ pointer: at, message }];
  if (predicate.exists === false)
    return read.found ? fail(`should be absent, got ${describeJsonValue(read.value)}`) : [];
  if (!read.found) return fail('is missing');
  const v = read.value;
  const out: Mismatch[] = [];
  const check = (ok: boolean, message: string) => {
    if (!ok) out.push({ pointer: at, message });
  };
  if (predicate.equals !== undefined) {
    check(
      jsonEqual(v, predicate.equals),
      `expected ${describeJsonValue(predicate.equals)}, got ${describeJsonValue(v)}`,
    );
  }
  if (predicate.not_equals !== undefined) {
    check(!jsonEqual(v, predicate.not_equals), `should not be ${describeJsonValue(predicate.not_equals)}`);
  }
  if (predicate.one_of !== undefined) {
    check(
      predicate.one_of.some((o) => jsonEqual(v, o)),
      `expected one of ${describeJsonValue(predicate.one_of)}, got ${describeJsonValue(v)}`,
    );
  }
  if (predicate.matches !== undefined) {
    check(
      typeof v === 'string' && new RegExp(predicate.matches, 'u').test(v),
      `expected a string matching /${predicate.matches}/, got ${describeJsonValue(v)}`,
    );
  }
  if (predicate.type !== undefined)
    check(typeOf(v, predicate.type), `expected ${predicate.type}, got ${describeJsonValue(v)}`);
  const size = typeof v === 'string' || Array.isArray(v) ? v.length : undefined;
  if (predicate.length !== undefined)
    check(size === predicate.length, `expected length ${predicate.length}, got ${size}`);
  if (predicate.min_length !== undefined) {
    check(
      size !== undefined && size >= predicate.min_length,
      `expected length >= ${predicate.min_length}, got ${size}`,
    );
  }
  if (predicate.max_length !== undefined) {
    check(
      size !== undefined && size <= predicate.max_length,
      `expected length <= ${predicate.max_length}, got ${size}`,
    );
  }
  const n = typeof v === 'number' ? v : undefined;
  if (predicate.gt !== undefined)
    check(n !== undefined && n > predicate.gt, `expected > ${predicate.gt}, got ${describeJsonValue(v)}`);
  if (predicate.gte !== undefined)
    check(n !== undefined && n >= predicate.gte, `expected >= ${predicate.gte}, got ${describeJsonValue(v)}`);
  if (predicate.lt !== undefined)
    check(n !== undefined && n < predicate.lt, `expected < ${predicate.lt}, got ${describeJsonValue(v)}`);
  if (predicate.lte !== undefined)
    check(n !== undefined && n <= predicate.lte, `expected <= ${predicate.lte}, got ${describeJsonValue(v)}`);
  if (predicate.contains !== undefined) {
    check(
      Array.isArray(v) && v.some((e) => matchSubset(e, predicate.contains).length === 0),
      `expected an array with an element containing ${describeJsonValue(predicate.contains)}`,
    );
  }
  if (predicate.not_contains !== undefined) {
    check(
      Array.isArray(v) && !v.some((e) => matchSubset(e, predicate.not_contains).length === 0),
      `expected an array with no element containing ${describeJsonValue(predicate.not_contains)}`,
    );
  }
  if (predicate.subset !== undefined) out.push(...matchSubset(v, predicate.subset, at));
  return out;
}

function typeOf(v: unknown, type: JsonType): boolean {
  switch (type) {
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'null':
      return v === null;
    case 'integer':
      return Number.isInteger(v);
    default:
      return typeof v === type;
  }
}
