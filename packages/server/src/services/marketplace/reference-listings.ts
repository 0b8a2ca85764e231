/**
 * The reference listings: every catalogue connector that takes bindings (not `deprecated`) is also listed, by the
 * reference catalogue's publisher at tier `verified`, so a new deployment's search is not empty. The sectors,
 * regimes, jurisdictions and pricing below are the catalogue's (what each type of connector is typically bought
 * for), data of the release like the manifests. Ids are fixed (`ns:listing:reference.<family>.<name>`).
 */
import { CONFORMANCE_PROFILES, type ConnectorManifest, type ConnectorType } from '@aar/core';
import type { PricingModel, RegisteredListing } from './listing-document.ts';
import { LISTING_ID_PREFIX, LISTING_SCHEMA } from './listing-document.ts';

export const REFERENCE_PUBLISHER = { name: 'AAR reference catalogue', tier: 'verified' } as const;
export const REFERENCE_ID_PREFIX = `${LISTING_ID_PREFIX}reference.`;

const EU_CORE = ['AT', 'BE', 'DE', 'ES', 'FR', 'IE', 'IT', 'NL'];
const DEFAULT_JURISDICTIONS = ['DE', 'FR', 'GB', 'IE', 'NL', 'US'];

const BY_TYPE: Readonly<Record<ConnectorType, { sectors: string[]; regimes: string[]; pricing: PricingModel }>> = {
  internet_payment_gateway: {
    sectors: ['digital_goods', 'retail', 'travel'],
    regimes: ['eu_ai_act', 'pci_dss', 'psd3'],
    pricing: 'usage',
  },
  issuer_processor: { sectors: ['banking', 'fintech'], regimes: ['dora', 'pci_dss', 'psd3'], pricing: 'enterprise' },
  network_token_service: { sectors: ['banking', 'retail'], regimes: ['pci_dss', 'psd3'], pricing: 'usage' },
  dispute_management: { sectors: ['retail', 'travel'], regimes: ['pci_dss', 'psd3'], pricing: 'subscription' },
  banking_app: { sectors: ['banking'], regimes: ['dora', 'gdpr', 'psd3'], pricing: 'enterprise' },
  wallet: { sectors: ['banking', 'retail'], regimes: ['gdpr', 'pci_dss', 'psd3'], pricing: 'usage' },
  agent_platform: {
    sectors: ['b2b_procurement', 'retail', 'travel'],
    regimes: ['eu_ai_act', 'gdpr', 'nist_ai_rmf'],
    pricing: 'subscription',
  },
  merchant_platform: { sectors: ['digital_goods', 'retail'], regimes: ['gdpr', 'pci_dss'], pricing: 'subscription' },
  risk_signal: { sectors: ['banking', 'fintech', 'retail'], regimes: ['eu_ai_act', 'gdpr', 'psd3'], pricing: 'usage' },
  identity_verification: { sectors: ['banking', 'fintech'], regimes: ['amla', 'eidas', 'gdpr'], pricing: 'usage' },
  compliance_archive: {
    sectors: ['banking', 'fintech', 'insurance'],
    regimes: ['dora', 'iso27001', 'soc2'],
    pricing: 'subscription',
  },
  siem: {
    sectors: ['banking', 'fintech', 'public_sector'],
    regimes: ['dora', 'iso27001', 'soc2'],
    pricing: 'subscription',
  },
  ticketing: { sectors: ['banking', 'retail'], regimes: ['iso27001', 'soc2'], pricing: 'subscription' },
  notification: { sectors: ['banking', 'retail'], regimes: ['gdpr'], pricing: 'usage' },
};

/** Where a connector's counterpart only exists in some markets. */
const JURISDICTIONS: Readonly<Record<string, string[]>> = {
  'ns:connector:banking:open-banking-uk-consent': ['GB'],
  'ns:connector:banking:nextgenpsd2-sca': EU_CORE,
  'ns:connector:banking:eudi-payment-wallet': EU_CORE,
  'ns:connector:risk:openid4vp-verifier': EU_CORE,
  'ns:connector:compliance:dora-incident-reporting': EU_CORE,
  'ns:connector:payments:jit-funding-processor': ['GB', 'US'],
  'ns:connector:agents:agentic-checkout-endpoint': ['US'],
};
const PRICING: Readonly<Record<string, PricingModel>> = {
  'ns:connector:operations:chat-ops-alerts': 'free',
  'ns:connector:operations:email-receipts-and-approvals': 'free',
};

const PROFILES: ReadonlySet<string> = new Set(CONFORMANCE_PROFILES);

export function referenceListing(manifest: ConnectorManifest, registeredAt: string): RegisteredListing {
  const [, , family, name] = manifest.connector_id.split(':');
  const typed = BY_TYPE[manifest.connector_type];
  return {
    schema_version: LISTING_SCHEMA,
    listing_id: `${REFERENCE_ID_PREFIX}${family}.${name}`,
    kind: 'connector',
    title: manifest.name,
    publisher: { ...REFERENCE_PUBLISHER },
    sectors: [...typed.sectors].sort(),
    regimes: [...typed.regimes].sort(),
    jurisdictions: [...(JURISDICTIONS[manifest.connector_id] ?? DEFAULT_JURISDICTIONS)].sort(),
    pricing_model: PRICING[manifest.connector_id] ?? typed.pricing,
    connector_id: manifest.connector_id,
    conformance_report_id: null,
    declared_profiles: manifest.supported_profiles.filter((p) => PROFILES.has(p)).sort(),
    registered_at: registeredAt,
  };
}
