import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareInstants, parseInstant } from '../../src/decide/instant.ts';

describe('parseInstant', () => {
  it.each([
    ['1970-01-01T00:00:00Z', 0, 0],
    ['2026-04-15T10:00:00Z', 1776247200, 0],
    ['2026-04-15T12:00:00+02:00', 1776247200, 0],
    ['2026-04-15T05:30:00-04:30', 1776247200, 0],
    ['2024-02-29T23:59:59.123456789Z', 1709251199, 123456789],
    ['0001-01-01T00:00:00Z', -62135596800, 0],
    ['0050-06-01T00:00:00Z', -60576249600, 0],
  ])('reads %s', (text, seconds, nanos) => {
    expect(parseInstant(text)).toEqual({ seconds, nanos });
  });

  it.each([
    '2026-04-15T10:00:00',
    '2026-04-15 10:00:00Z',
    '2026-04-15t10:00:00z',
    '2026-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-04-15T24:00:00Z',
    '2026-04-15T10:00:60Z',
    '2026-04-15T10:00:00.Z',
    '2026-04-15T10:00:00.1234567890Z',
    '2026-04-15T10:00:00+2:00',
    '+02026-04-15T10:00:00Z',
    1776247200,
    null,
  ])('refuses %j', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });

  it('agrees with Date for millisecond timestamps of any year', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (date) => {
          const iso = date.toISOString();
          const ms = date.getTime();
          expect(parseInstant(iso)).toEqual({
            seconds: Math.floor(ms / 1000),
            nanos: (((ms % 1000) + 1000) % 1000) * 1e6,
          });
        },
      ),
    );
  });

  it('orders by seconds then fraction', () => {
    const a = parseInstant('2026-04-15T10:00:00.0005Z');
    const b = parseInstant('2026-04-15T10:00:00.000501Z');
    if (!a || !b) throw new Error('unparsed');
    expect(compareInstants(a, b)).toBeLessThan(0);
    expect(compareInstants(b, a)).toBeGreaterThan(0);
    expect(compareInstants(a, a)).toBe(0);
  });
});
