/**
 * Runtime shape guards. Attacker assumption: a snapshot replayed from an evidence pack is plain JSON that may have been
 * edited; a well-typed call can still carry anything at runtime. Every read in the checks goes through these, and a
 * value that fails them fails its check (fail closed), it never throws.
 */
import type { MinorMoney } from './types.ts';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isString);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** `/^[A-Z]{3}$/` (the shape of ISO 4217 alpha-3), checked by hand: decide tests several per call. */
function isCurrencyCode(text: string): boolean {
  if (text.length !== 3) return false;
  for (let i = 0; i < 3; i++) {
    const code = text.charCodeAt(i);
    if (code < 65 /* A */ || code > 90 /* Z */) return false;
  }
  return true;
}

/** A money value whose `minor` is a safe integer >= 0 and whose currency looks like ISO 4217 alpha-3. */
export function isMinorMoney(value: unknown): value is MinorMoney {
  return (
    isRecord(value) &&
    typeof value.currency === 'string' &&
    isCurrencyCode(value.currency) &&
    Number.isSafeInteger(value.minor) &&
    (value.minor as number) >= 0
  );
}

export function isNonNegativeSafeInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Reads `record[key]` only when it is an own property: `__proto__` or `constructor` in JSON must not resolve. */
export function ownValue(record: unknown, key: string): unknown {
  return isRecord(record) && Object.hasOwn(record, key) ? record[key] : undefined;
}
