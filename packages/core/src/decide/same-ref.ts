/**
 * Identity of references across their accepted spellings (CONTRACT section 1 and 11): `ns:human:<id>` is
 * `ns:entity:person:<id>`, `ns:agent:<id>` is `ns:entity:agent:<id>`, and `ns:credential:card-token:<id>` is
 * `ns:card_token:<id>`. Anything that does not parse compares by exact string, and never equals a non-string.
 */
import { tryParseCardTokenRef, tryParseEntityId } from '../ids/identifiers.ts';
import { memoizeText } from './text-memo.ts';

/** The canonical entity id of a text, or the text itself when it does not parse. */
const canonicalEntity = memoizeText((text: string): string => tryParseEntityId(text)?.id ?? text);

/** The card token's local id, or undefined when the text is neither accepted spelling. */
const cardTokenLocal = memoizeText((text: string): string | undefined => tryParseCardTokenRef(text));

export function sameEntity(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  // equal texts have equal canonical forms, whether or not they parse
  if (a === b) return true;
  return canonicalEntity(a) === canonicalEntity(b);
}

export function sameInstrument(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  if (a === b) return cardTokenLocal(a) !== undefined;
  const la = cardTokenLocal(a);
  const lb = cardTokenLocal(b);
  return la !== undefined && la === lb;
}
