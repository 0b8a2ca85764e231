/**
 * RFC 6901 JSON pointer evaluation over parsed JSON. Written by hand: a few lines, and core takes no dependency
 * for it. Attacker assumption: the pointer may come from a caller (a projection to check) and the document from
 * anywhere: only own members are followed (never `__proto__` or inherited names), array indices follow the RFC's
 * grammar exactly (`0` or no leading zero, never `-`), and a malformed escape is refused.
 */

export type PointerResolution = { found: true; value: unknown } | { found: false };

/** The reference tokens of `pointer`, unescaped; undefined when it is not an RFC 6901 pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return undefined;
    tokens.push(raw.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  return tokens;
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** One step down: the member `token` of `value`, if it has one. */
export function childOf(value: unknown, token: string): PointerResolution {
  if (Array.isArray(value)) {
    if (!ARRAY_INDEX.test(token)) return { found: false };
    const index = Number(token);
    return index < value.length ? { found: true, value: value[index] } : { found: false };
  }
  if (typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, token)) {
    return { found: true, value: (value as Record<string, unknown>)[token] };
  }
  return { found: false };
}

/** What `pointer` names in `document`; `found: false` for a malformed pointer or a missing member. */
export function resolvePointer(document: unknown, pointer: string): PointerResolution {
  const tokens = parsePointer(pointer);
  if (tokens === undefined) return { found: false };
  let current: PointerResolution = { found: true, value: document };
  for (const token of tokens) {
    current = childOf(current.value, token);
    if (!current.found) return current;
  }
  return current;
}
