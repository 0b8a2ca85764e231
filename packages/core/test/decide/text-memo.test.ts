/**
 * The memo decide keeps for timestamps and references: keyed by text only, bounded in entries and in text length,
 * and transparent (a memoised answer is the answer the function gives).
 */
import { describe, expect, it } from 'vitest';
import { sameEntity, sameInstrument } from '../../src/decide/same-ref.ts';
import { memoizeText } from '../../src/decide/text-memo.ts';

describe('memoizeText', () => {
  it('computes a text once, undefined answers included', () => {
    const seen: string[] = [];
    const lengthOrNothing = memoizeText((text) => {
      seen.push(text);
      return text === 'none' ? undefined : text.length;
    });
    expect([lengthOrNothing('abc'), lengthOrNothing('abc'), lengthOrNothing('none'), lengthOrNothing('none')]).toEqual([
      3,
      3,
      undefined,
      undefined,
    ]);
    expect(seen).toEqual(['abc', 'none']);
  });

  it('does not keep a long text, and starts over past its entry limit', () => {
    const seen: string[] = [];
    const identity = memoizeText((text) => {
      seen.push(text);
      return text;
    });
    const long = 'x'.repeat(257);
    identity(long);
    identity(long);
    expect(seen).toEqual([long, long]);
    seen.length = 0;
    for (let i = 0; i <= 4096; i++) identity(`t${i}`);
    identity('t0');
    // 4096 entries filled the memo; the 4097th cleared it, so `t0` is computed again
    expect(seen.filter((t) => t === 't0')).toHaveLength(2);
  });

  it('answers the same for references past the kept length', () => {
    const local = 'a'.repeat(120);
    expect(sameInstrument(`ns:card_token:${local}`, `ns:credential:card-token:${local}`)).toBe(true);
    const tooLong = 'a'.repeat(300);
    expect(sameInstrument(`ns:card_token:${tooLong}`, `ns:credential:card-token:${tooLong}`)).toBe(false);
    expect(sameEntity(`ns:human:${tooLong}`, `ns:entity:person:${tooLong}`)).toBe(false);
    expect(sameEntity(`ns:human:${local}`, `ns:entity:person:${local}`)).toBe(true);
  });
});
