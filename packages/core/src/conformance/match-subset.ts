/**
 * "The response contains this": every member an expected object names must be in the actual object and match
 * (other members are ignored); an expected array must have the same length and match element by element; scalars
 * are equal (numbers by value). Returns every mismatch with its JSON pointer, never only the first.
 */
import { appendPointer } from '../json/json-pointer.ts';

export interface Mismatch {
  pointer: string;
  message: string;
}

export function matchSubset(actual: unknown, expected: unknown, pointer = ''): Mismatch[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [{ pointer, message: `expected an array, got ${describeJsonValue(actual)}` }];
    if (actual.length !== expected.length) {
      return [{ pointer, message: `expected ${expected.length} items, got ${actual.length}` }];
    }
    return expected.flatMap((e, i) => matchSubset(actual[i], e, appendPointer(pointer, i)));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) {
      return [{ pointer, message: `expected an object, got ${describeJsonValue(actual)}` }];
    }
    return Object.entries(expected).flatMap(([k, e]) => {
      const at = appendPointer(pointer, k);
      if (!Object.hasOwn(actual, k)) return [{ pointer: at, message: 'is missing' }];
      return matchSubset((actual as Record<string, unknown>)[k], e, at);
    });
  }
  if (actual === expected) return [];
  return [{ pointer, message: `expected ${JSON.stringify(expected)}, got ${describeJsonValue(actual)}` }];
}

/** Deep equality of JSON values (object member order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

export function describeJsonValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
