import { describe, expect, it } from 'vitest';
import { JURISDICTIONS, isJurisdiction } from '../../src/geo/jurisdictions.ts';

describe('JURISDICTIONS', () => {
  it('holds the 249 ISO 3166-1 alpha-2 codes', () => {
    expect(JURISDICTIONS.size).toBe(249);
    for (const code of JURISDICTIONS) expect(code).toMatch(/^[A-Z]{2}$/);
    for (const code of ['FR', 'DE', 'US', 'GB', 'JP', 'AX', 'BQ', 'CW', 'SS', 'SX', 'PS', 'TW', 'AQ', 'UM']) {
      expect(isJurisdiction(code)).toBe(true);
    }
  });

  it.each(['fr', 'Fr', 'XK', 'EU', 'UK', 'FRA', '', 'ZZ', 'AN', 'YU'])('refuses %j', (code) => {
    expect(isJurisdiction(code)).toBe(false);
  });

  it('refuses non-strings', () => {
    expect(isJurisdiction(250)).toBe(false);
    expect(isJurisdiction(undefined)).toBe(false);
  });

  it('cannot be changed', () => {
    const set = JURISDICTIONS as Set<string>;
    expect(() => set.add('XK')).toThrow(TypeError);
    expect(() => set.delete('FR')).toThrow(TypeError);
    expect(() => set.clear()).toThrow(TypeError);
    expect(isJurisdiction('XK')).toBe(false);
    expect(JURISDICTIONS.size).toBe(249);
  });
});
