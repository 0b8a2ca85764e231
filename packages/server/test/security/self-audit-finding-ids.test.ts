/**
 * The self-audit names the row where it found a card number (checks/stored-card-numbers.ts): by its id as stored,
 * starred only when the id itself holds a card number. A minted id whose UUID happens to hold 12+ digits across its
 * hyphens stays readable (it once came out as `…-75c*-****-********da4e`, one random id in a few hundred).
 */
import { describe, expect, it } from 'vitest';
import { unlessPan } from '../../src/services/self-audit/checks/stored-card-numbers.ts';

describe('self-audit finding ids', () => {
  it('keeps a minted id whose UUID holds a long digit run across its hyphens', () => {
    const id = 'ns:decision:01a20c26-7661-75c4-9574-88973178da4e';
    expect(unlessPan(id)).toBe(id);
    expect(unlessPan('/request/note')).toBe('/request/note');
  });

  it('stars an id or pointer that holds a card number itself', () => {
    expect(unlessPan('ns:merchant:card-4111111111111111')).toBe('ns:merchant:card-****************');
    expect(unlessPan('/4111 1111 1111 1111')).not.toMatch(/4111/);
  });
});
