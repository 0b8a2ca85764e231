/**
 * Evaluates one rule-pack predicate (rule-pack.ts `Predicate`) on a JSON value of an evidence pack. Values are
 * compared as RFC 8785 canonical JSON, so member order and number spelling never matter. An unknown `op` is an
 * error (a rule pack from a newer release must not pass silently here), never a pass.
 */
import { AarError } from '../errors/aar-error.ts';
import { tryCanonicalJson } from '../json/write-canonical-json.ts';
import { findPan } from '../pan/find-pan.ts';
import type { Predicate } from './rule-pack.ts';
import { resolvePointer } from './resolve-pointer.ts';

function sameJson(a: unknown, b: unknown): boolean {
  const left = tryCanonicalJson(a);
  return left !== undefined && left === tryCanonicalJson(b);
}

/** True when `value` (found in `document`) passes `predicate`. */
export function evaluatePredicate(predicate: Predicate, value: unknown, document: unknown): boolean {
  switch (predicate.op) {
    case 'present':
      return value !== null && value !== undefined;
    case 'equals':
      return sameJson(value, predicate.value);
    case 'in':
      return predicate.values.some((candidate) => sameJson(value, candidate));
    case 'contains':
      return (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.entries(predicate.members).every(
          ([name, expected]) =>
            Object.prototype.hasOwnProperty.call(value, name) &&
            sameJson((value as Record<string, unknown>)[name], expected),
        )
      );
    case 'non_empty':
      if (typeof value === 'string' || Array.isArray(value)) return value.length > 0;
      return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
    case 'equals_pointer': {
      const other = resolvePointer(document, predicate.pointer);
      return other.found && sameJson(value, other.value);
    }
    case 'no_card_number':
      return findPan(value) === undefined;
    default:
      throw new AarError('internal', `unknown rule-pack predicate \`${String((predicate as { op: unknown }).op)}\``);
  }
}
