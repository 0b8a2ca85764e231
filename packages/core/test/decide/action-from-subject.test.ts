import { describe, expect, it } from 'vitest';
import { actionFromSubject, actionsCoveredBy, PURCHASE_ACTIONS } from '../../src/decide/index.ts';

describe('actionFromSubject', () => {
  it('reads the purchase capability as execute and each sub-capability as its action', () => {
    expect(actionFromSubject('ns:capability:payment_action:card_purchase')).toBe('execute');
    for (const action of PURCHASE_ACTIONS) expect(actionFromSubject(`ns:capability:purchase:${action}`)).toBe(action);
  });

  it.each([
    'ns:capability:purchase:launder',
    'ns:capability:purchase:',
    'ns:capability:purchase:execute:extra',
    'ns:capability:payment_action:wire_transfer',
    'NS:CAPABILITY:PURCHASE:EXECUTE',
    'ns:capability:purchase:__proto__',
  ])('knows no action for %s', (subject) => {
    expect(actionFromSubject(subject)).toBeUndefined();
  });

  it('lets the purchase capability cover all seven actions and a sub-capability only its own', () => {
    expect(actionsCoveredBy('ns:capability:payment_action:card_purchase')).toEqual(PURCHASE_ACTIONS);
    expect(actionsCoveredBy('ns:capability:purchase:prepare')).toEqual(['prepare']);
    expect(actionsCoveredBy('ns:capability:other:thing')).toEqual([]);
  });
});
