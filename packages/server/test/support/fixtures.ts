import { generateKeyPairSync } from 'node:crypto';

/** A fresh Ed25519 key pair for an agent: the public JWK to register, the private key to sign with. */
export function agentKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
  return { publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, privateKey };
}

export const inOneYear = (): string =>
  new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function personBody(id = 'alice') {
  return { type: 'person', id, display_name: 'Alice Example' };
}

export function grantBody(overrides: Record<string, unknown> = {}) {
  return {
    principal_entity_id: 'ns:human:alice',
    actor_entity_id: 'ns:agent:shopper-1',
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-1',
    scope: {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      max_daily_amount: { amount: 100.0, currency: 'EUR' },
      requires_approval_above: { amount: 40.5, currency: 'EUR' },
      allowed_merchant_categories: ['5411', 'groceries'],
      blocked_merchant_categories: ['7995'],
      allowed_jurisdictions: ['DE', 'FR'],
      valid_until: inOneYear(),
      allowed_actions: ['purchase.search', 'purchase.execute'],
      may_delegate: true,
      max_delegation_depth: 2,
    },
    ...overrides,
  };
}
