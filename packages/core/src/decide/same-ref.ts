/**
 * Identity of references across their accepted spellings (CONTRACT section 1 and 11): `ns:human:<id>` is
 * `ns:entity:person:<id>`, `ns:agent:<id>` is `ns:entity:agent:<id>`, and `ns:credential:card-token:<id>` is
 * `ns:card_token:<id>`. Anything that does not parse compares by exact string, and never equals a non-string.
 */
import { tryParseCardTokenRef, tryParseEntityId } from '../ids/identifiers.ts';

export function sameEntity(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  // equal texts have equal canonical forms, whether or not they parse
  if (a === b) return true;
  return (tryParseEntityId(a)?.id ?? a) === (tryParseEntityId(b)?.id ?? b);
}

export function sameInstrument(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  if (a === b) return tryParseCardTokenRef(a) !== undefined;
  const la = tryParseCardTokenRef(a);
  const lb = tryParseCardTokenRef(b);
  return la !== undefined && la === lb;
}
