/** Appends one reference token to an RFC 6901 JSON pointer, escaping `~` and `/`. */
export function appendPointer(pointer: string, token: string | number): string {
  if (typeof token === 'number') return `${pointer}/${token}`;
  if (!/[~/]/.test(token)) return `${pointer}/${token}`;
  return `${pointer}/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
