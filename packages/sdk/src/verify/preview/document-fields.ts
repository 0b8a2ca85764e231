/**
 * Small readers the preview verifiers share: each answers whether a value has the form the documents promise, so a
 * check reads a member once and names it when it is wrong. Values are untrusted JSON.
 */
import { fail, isRecord, type CheckOutcome } from './preview-verification.ts';

/** ISO 8601 UTC with milliseconds, the form every document timestamp has (`2026-11-28T17:00:00.000Z`). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));
}

/** `ns:<kind>:<rest>` with a non-empty rest. */
export function isNsId(value: unknown, kind: string): value is string {
  return typeof value === 'string' && value.startsWith(`ns:${kind}:`) && value.length > kind.length + 4;
}

export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Each `[pointer, ok]` pair in order; the first that is not ok is the failure `malformed_document` naming it. */
export function requireFields(pairs: ReadonlyArray<readonly [pointer: string, ok: boolean]>): CheckOutcome {
  for (const [pointer, ok] of pairs) if (!ok) return fail('malformed_document', pointer);
  return undefined;
}

/** `value[name]` when `value` is an object, else undefined (never a prototype member). */
export function member(value: unknown, name: string): unknown {
  return isRecord(value) && Object.hasOwn(value, name) ? value[name] : undefined;
}

/** Compares ISO timestamps of the form above (lexical order is time order for them). */
export function before(a: string, b: string): boolean {
  return Date.parse(a) < Date.parse(b);
}
