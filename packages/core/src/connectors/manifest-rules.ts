/**
 * The rules a manifest must keep beyond its JSON Schema: what its risk block implies. A connector that can move
 * money verifies every signature, makes every call idempotent and leaves an audit event (the minimum); one
 * that changes state makes idempotent, audited calls; its family, type and id agree; a connector that must verify
 * signatures names at least one signing profile it can verify (else no endpoint could ever be bound to it).
 * Pure: returns every violation, as `{ path, message }` pointers into the manifest, empty when it keeps them all.
 */
import type { FieldError } from '../errors/aar-error.ts';
import { CONNECTOR_TYPES, connectorFamilyOf, type ConnectorManifest } from './connector-manifest.ts';
import { signingProfilesOf } from './signing-profiles.ts';

export function findManifestRuleViolations(manifest: ConnectorManifest): FieldError[] {
  const out: FieldError[] = [];
  const { risk } = manifest;
  if (risk.side_effect_level === 'move_money') {
    for (const flag of ['requires_signature_verification', 'requires_idempotency', 'requires_audit_event'] as const) {
      if (!risk[flag]) out.push({ path: `/risk/${flag}`, message: 'must be true for a `move_money` connector' });
    }
    if (risk.risk_level !== 'high' && risk.risk_level !== 'critical') {
      out.push({ path: '/risk/risk_level', message: 'must be `high` or `critical` for a `move_money` connector' });
    }
  }
  if (risk.side_effect_level === 'state_change') {
    for (const flag of ['requires_idempotency', 'requires_audit_event'] as const) {
      if (!risk[flag]) out.push({ path: `/risk/${flag}`, message: 'must be true for a `state_change` connector' });
    }
  }
  const family = connectorFamilyOf(manifest.connector_id);
  if (family !== manifest.category) {
    out.push({ path: '/category', message: `must be the family of the id (\`${family ?? '?'}\`)` });
  }
  if (CONNECTOR_TYPES[manifest.connector_type] !== manifest.category) {
    out.push({
      path: '/connector_type',
      message: `\`${manifest.connector_type}\` is not of family \`${manifest.category}\``,
    });
  }
  if (risk.requires_signature_verification && signingProfilesOf(manifest).length === 0) {
    out.push({
      path: '/supported_profiles',
      message: 'must name a webhook signing profile (`ns.webhooks.<profile>.v1`)',
    });
  }
  return out;
}
