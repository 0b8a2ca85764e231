export * from './types.ts';
export * from './reason-codes.ts';
export * from './decide.ts';
export { actionFromSubject, actionsCoveredBy, isPurchaseAction, subCapabilityId } from './action-from-subject.ts';
export { MONEY_MOVING_ACTIONS, PURCHASE_ACTIONS } from './action-from-subject.ts';
export { computeBasketHash, BASKET_HASH_PATTERN } from './basket-hash.ts';
export { computeEffectiveScope } from './effective-scope.ts';
export { decidingChain } from './deciding-chain.ts';
