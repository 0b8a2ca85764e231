import { describe, expect, it } from 'vitest';
import {
  acceptsSigningProfile,
  findManifestRuleViolations,
  signingProfilesOf,
  type ConnectorManifest,
} from '../../src/index.ts';

const gateway: ConnectorManifest = {
  schema_version: 'ns.connector_manifest.v1',
  connector_id: 'ns:connector:payments:test-gateway',
  name: 'Test gateway',
  connector_type: 'internet_payment_gateway',
  category: 'payments',
  version: '1.0.0',
  supported_profiles: ['ns.core.v1', 'ns.webhooks.v1', 'ns.webhooks.asymmetric.v1'],
  risk: {
    risk_level: 'high',
    side_effect_level: 'move_money',
    requires_signature_verification: true,
    requires_idempotency: true,
    requires_audit_event: true,
  },
  events: { subscribes_to: ['ns.authority.revoked'], publishes: [] },
  status: 'active',
};
const paths = (m: ConnectorManifest) => findManifestRuleViolations(m).map((v) => v.path);

describe('findManifestRuleViolations', () => {
  it('accepts a money mover that verifies, is idempotent and audited', () => {
    expect(findManifestRuleViolations(gateway)).toEqual([]);
  });

  it('names every risk flag a money mover lacks, and a low risk level', () => {
    const lax = {
      ...gateway,
      risk: {
        risk_level: 'medium',
        side_effect_level: 'move_money',
        requires_signature_verification: false,
        requires_idempotency: false,
        requires_audit_event: false,
      },
    } as ConnectorManifest;
    expect(paths(lax)).toEqual([
      '/risk/requires_signature_verification',
      '/risk/requires_idempotency',
      '/risk/requires_audit_event',
      '/risk/risk_level',
    ]);
  });

  it('a state change must be idempotent and audited', () => {
    const m = { ...gateway, risk: { ...gateway.risk, side_effect_level: 'state_change', requires_idempotency: false } };
    expect(paths(m as ConnectorManifest)).toEqual(['/risk/requires_idempotency']);
  });

  it('family, type and id must agree', () => {
    expect(paths({ ...gateway, category: 'banking' })).toEqual(['/category', '/connector_type']);
    expect(paths({ ...gateway, connector_type: 'siem' })).toEqual(['/connector_type']);
  });

  it('a verifying connector must name a signing profile; which it names decides what it accepts', () => {
    const none = { ...gateway, supported_profiles: ['ns.core.v1'] };
    expect(paths(none)).toEqual(['/supported_profiles']);
    expect(signingProfilesOf(gateway)).toEqual(['asymmetric']);
    expect(acceptsSigningProfile(gateway, 'asymmetric')).toBe(true);
    expect(acceptsSigningProfile(gateway, 'shared_secret')).toBe(false);
    const lenient = { ...gateway, risk: { ...gateway.risk, requires_signature_verification: false } };
    expect(acceptsSigningProfile(lenient, 'shared_secret')).toBe(true);
  });
});
