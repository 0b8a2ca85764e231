/**
 * Minted signing-key ids never read as a card number (CONTRACT sections 4 and 7): the PAN guard refuses any request
 * holding one, and every signed document a client sends back (POST /v1/bundles/verify, /v1/evidence-packs/verify)
 * carries the key id. Checked for every day of a century and any 8 hex digits, the all-digit ones included.
 */
import fc from 'fast-check';
import { containsPan } from '@aar/core';
import { describe, expect, it } from 'vitest';
import { keyNameFor } from '../../src/keys/key-ring.ts';

describe('keyNameFor', () => {
  it('never mints a key id the PAN guard reads as a card number', () => {
    const day = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }).map((ms) => new Date(ms));
    const hex = fc.stringMatching(/^[0-9a-f]{8}$/);
    fc.assert(
      fc.property(day, hex, (now, suffix) => !containsPan(`ns:key:${keyNameFor(now, suffix)}`)),
      { numRuns: 5000 },
    );
    // the earlier form joined "25519", the date and the hex digits: this one was refused
    expect(containsPan('ns:key:ed25519-20261124-10000003')).toBe(true);
    expect(containsPan(`ns:key:${keyNameFor(new Date('2026-11-24T00:00:00Z'), '10000003')}`)).toBe(false);
    expect(keyNameFor(new Date('2026-11-24T10:00:00Z'), '0badc0de')).toBe('ed25519-d20261124-k0badc0de');
  });
});
