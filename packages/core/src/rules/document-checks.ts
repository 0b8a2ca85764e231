/**
 * Small shape checks shared by the policy document validators: each pushes a `{ pointer, message }` naming the
 * member, never throws. Validators read untrusted JSON (an operator's upload); they only ever inspect it.
 */
import { utf8Encode } from '../encoding/utf8.ts';
import { appendPointer } from '../json/json-pointer.ts';
import type { RuleProblem } from './profile.ts';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Problems {
  readonly list: RuleProblem[] = [];

  add(pointer: string, message: string): void {
    this.list.push({ pointer, message });
  }

  /** A non-empty string member; `pattern` when given. Returns the string when it is one. */
  text(
    doc: Record<string, unknown>,
    member: string,
    pointer: string,
    pattern?: RegExp,
    what?: string,
  ): string | undefined {
    const value = doc[member];
    const at = appendPointer(pointer, member);
    if (typeof value !== 'string' || value.length === 0) {
      this.add(at, value === undefined ? `${member} is required` : `${member} must be a non-empty string`);
      return undefined;
    }
    if (pattern && !pattern.test(value)) {
      this.add(at, `${member} must be ${what ?? `a string matching ${String(pattern)}`}`);
      return undefined;
    }
    return value;
  }

  /** An array member (`optional`: absence is fine). Returns the array when it is one. */
  array(doc: Record<string, unknown>, member: string, pointer: string, optional = false): unknown[] | undefined {
    const value = doc[member];
    if (value === undefined && optional) return undefined;
    if (!Array.isArray(value)) {
      this.add(
        appendPointer(pointer, member),
        value === undefined ? `${member} is required` : `${member} must be an array`,
      );
      return undefined;
    }
    return value;
  }

  /** Members outside `allowed` are refused: a stored, signed format carries nothing unread. */
  onlyMembers(doc: Record<string, unknown>, allowed: ReadonlySet<string>, pointer: string): void {
    for (const key of Object.keys(doc)) {
      if (!allowed.has(key)) this.add(appendPointer(pointer, key), `unknown member ${JSON.stringify(key)}`);
    }
  }

  /** Each string of `items` matching `pattern` and unique. */
  uniqueStrings(items: unknown[], pointer: string, pattern: RegExp | ((s: string) => boolean), what: string): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    items.forEach((item, i) => {
      const at = appendPointer(pointer, i);
      const ok = typeof item === 'string' && (typeof pattern === 'function' ? pattern(item) : pattern.test(item));
      if (!ok) return this.add(at, `must be ${what}`);
      if (seen.has(item)) return this.add(at, `${JSON.stringify(item)} is listed twice`);
      seen.add(item);
      out.push(item);
    });
    return out;
  }
}

/** UTF-8 bytes of the document's JSON text, or undefined when it cannot be serialized. */
export function jsonByteLength(doc: unknown): number | undefined {
  try {
    const text = JSON.stringify(doc);
    return text === undefined ? undefined : utf8Encode(text).length;
  } catch {
    return undefined;
  }
}
