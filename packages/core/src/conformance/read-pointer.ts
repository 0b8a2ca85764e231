/**
 * Reads an RFC 6901 JSON pointer. Attacker assumption: the document is a response from the deployment under test;
 * only own members are read (`/__proto__` and `/constructor` never reach the prototype).
 */

export type PointerRead = { found: true; value: unknown } | { found: false };

export function readPointer(document: unknown, pointer: string): PointerRead {
  if (pointer === '') return { found: true, value: document };
  if (!pointer.startsWith('/')) return { found: false };
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= current.length) return { found: false };
      current = current[Number(token)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
