import { CARD_PURCHASE_CAPABILITY } from '@aar/core';

/** The seven sub-capabilities of the purchase action (SPEC "What the service does", 8). */
export const PURCHASE_ACTIONS = [
  'purchase.search',
  'purchase.compare',
  'purchase.prepare',
  'purchase.request_approval',
  'purchase.execute',
  'purchase.refund_request',
  'purchase.dispute_prepare',
] as const;
export type PurchaseAction = (typeof PURCHASE_ACTIONS)[number];

/** Capabilities a grant may name: the card purchase capability (all seven) or one sub-capability. */
export const GRANTABLE_CAPABILITIES: readonly string[] = [
  CARD_PURCHASE_CAPABILITY,
  ...PURCHASE_ACTIONS.map((a) => `ns:capability:purchase:${a.slice('purchase.'.length)}`),
];
