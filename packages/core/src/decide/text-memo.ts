/**
 * A memo for a pure function of a text, for the few texts decide reads again on every call (timestamps, card token
 * and entity references). Keyed by the string only, never by an object: a caller may change its snapshot between
 * calls, a string cannot change. Results must be immutable (primitives or frozen objects): they are shared.
 * Bounded, since a replayed snapshot is attacker-controlled: past `MEMO_LIMIT` entries it starts over, and a text
 * longer than `MEMO_MAX_TEXT` is computed without being kept.
 */
const MEMO_LIMIT = 4096;
const MEMO_MAX_TEXT = 256;

export function memoizeText<T>(compute: (text: string) => T): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    const known = memo.get(text);
    if (known !== undefined || memo.has(text)) return known as T;
    const computed = compute(text);
    if (text.length <= MEMO_MAX_TEXT) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(text, computed);
    }
    return computed;
  };
}
