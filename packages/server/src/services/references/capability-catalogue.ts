/**
 * The capabilities a grant may name and a request may ask for (CONTRACT section 3): `ns:capability:<family>:<action>`
 * refs of decision maps resolve here (`GET /v1/capabilities/{id}`).
 */
import { AarError, actionsCoveredBy, CARD_PURCHASE_CAPABILITY, MONEY_MOVING_ACTIONS } from '@aar/core';
import { GRANTABLE_CAPABILITIES } from '../grants/purchase-actions.ts';

export interface CapabilityView {
  capability_id: string;
  family: string;
  /** the actions of the purchase capability this capability conveys, e.g. `purchase.execute` */
  actions: string[];
  /** true for the actions that can move money: a root grant for them must end and be bounded (docs/delegation.md) */
  moves_money: boolean;
  description: string;
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  'purchase.search': 'search a catalogue for the principal; nothing is bought',
  'purchase.compare': 'compare offers; nothing is bought',
  'purchase.prepare': 'prepare a basket or checkout without executing it',
  'purchase.request_approval': "push an approval request to the principal's banking app",
  'purchase.execute': 'execute a card purchase: the amount is reserved against the daily limit',
  'purchase.refund_request': 'request a refund of an earlier purchase',
  'purchase.dispute_prepare': 'prepare a dispute of an earlier purchase; nothing is filed',
};

function capabilityView(id: string): CapabilityView {
  const [, , family = ''] = id.split(':');
  const covered = actionsCoveredBy(id);
  const actions = covered.map((a) => `purchase.${a}`);
  const description =
    id === CARD_PURCHASE_CAPABILITY
      ? 'card purchases with a tokenised card: all seven purchase actions unless a grant narrows `allowed_actions`'
      : (DESCRIPTIONS[actions[0] ?? ''] ?? '');
  return {
    capability_id: id,
    family,
    actions,
    moves_money: covered.some((a) => MONEY_MOVING_ACTIONS.includes(a)),
    description,
  };
}

export function listCapabilities(): CapabilityView[] {
  return GRANTABLE_CAPABILITIES.map(capabilityView);
}

export function getCapability(id: string): CapabilityView {
  if (!GRANTABLE_CAPABILITIES.includes(id)) {
    throw new AarError('not_found', `no capability \`${id.slice(0, 160)}\``);
  }
  return capabilityView(id);
}
