/**
 * Expands a pointer template (rule-pack.ts `PointerTemplate`) over one document into the concrete RFC 6901
 * pointers that resolve in it, each with its value. A `{*}` token stands for every member present at that point;
 * any other token is an ordinary (escaped) reference token. Expansion follows only what exists, so every pointer it
 * returns resolves inside the document. The number of results is bounded by the document's own size.
 */
import { appendPointer } from '../json/json-pointer.ts';
import { childOf, parsePointer } from './resolve-pointer.ts';

export const WILDCARD_TOKEN = '{*}';

export interface ExpandedPointer {
  pointer: string;
  value: unknown;
}

/** Undefined when the template is not a well-formed pointer; otherwise every expansion that resolves, in order. */
export function expandPointerTemplate(document: unknown, template: string): ExpandedPointer[] | undefined {
  const tokens = parsePointer(template);
  if (tokens === undefined) return undefined;
  let frontier: ExpandedPointer[] = [{ pointer: '', value: document }];
  for (const token of tokens) {
    const next: ExpandedPointer[] = [];
    for (const at of frontier) {
      const names = token === WILDCARD_TOKEN ? memberNames(at.value) : [token];
      for (const name of names) {
        const child = childOf(at.value, name);
        if (child.found) next.push({ pointer: appendPointer(at.pointer, name), value: child.value });
      }
    }
    frontier = next;
  }
  return frontier;
}

function memberNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((_, i) => String(i));
  if (typeof value === 'object' && value !== null) return Object.keys(value);
  return [];
}
