/**
 * Small shape checks shared by the policy document validators: each pushes a `{ pointer, message }` naming the
 * member, never throws. Validators read untrusted JSON (an operator's upload); they only ever inspect it.
 */
import { utf8Encode } from '../encoding/utf8.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { nameOfId, SEMVER } from './names.ts';
import type { RuleProblem } from './profile.ts';

/** What the head of one kind of policy document is checked against (documentHead). */
export interface DocumentHead {
  /** `a rule pack`: the refusal of a non-object says `<what> must be a JSON object` */
  what: string;
  maxBytes: number;
  members: ReadonlySet<string>;
  schema: string;
  /** the id member (`pack_id`) and its prefix (`ns:rule_pack:`) */
  idMember: string;
  prefix: string;
}

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

  /**
   * The head every policy document shares: an object, at most `maxBytes` of JSON, only its members, its schema, an id
   * `<prefix><name>`, a semantic version. Returns the object (undefined when it is none: nothing else can be read) and
   * the id's name when it is well formed.
   */
  documentHead(doc: unknown, head: DocumentHead): { doc?: Record<string, unknown>; name?: string } {
    if (!isRecord(doc)) {
      this.add('', `${head.what} must be a JSON object`);
      return {};
    }
    const bytes = jsonByteLength(doc);
    if (bytes === undefined) this.add('', 'the document is not serializable JSON');
    else if (bytes > head.maxBytes) this.add('', `the document is ${bytes} bytes, at most ${head.maxBytes} allowed`);
    this.onlyMembers(doc, head.members, '');
    if (doc.schema_version !== head.schema) this.add('/schema_version', `schema_version must be "${head.schema}"`);
    const id = this.text(doc, head.idMember, '');
    const name = id === undefined ? undefined : nameOfId(id, head.prefix);
    if (id !== undefined && name === undefined) {
      this.add(
        `/${head.idMember}`,
        `${head.idMember} must be "${head.prefix}<name>" with a name matching ^[a-z][a-z0-9_-]{1,62}$`,
      );
    }
    this.text(doc, 'version', '', SEMVER, 'a semantic version (1.0.0)');
    return name === undefined ? { doc } : { doc, name };
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
