// Connector manifests (CONTRACT section 15): the manifest's shape, its closed value lists and the rules its risk
// block implies. Pure data and checks: the server loads and enforces the catalogue, SDKs and the console may read it.
export {
  CONNECTOR_FAMILIES,
  CONNECTOR_ID_PATTERN,
  CONNECTOR_STATUSES,
  CONNECTOR_TYPES,
  connectorFamilyOf,
  RISK_LEVELS,
  SIDE_EFFECT_LEVELS,
  type ConnectorFamily,
  type ConnectorManifest,
  type ConnectorRisk,
  type ConnectorStatus,
  type ConnectorType,
  type RiskLevel,
  type SideEffectLevel,
} from './connector-manifest.ts';
export { findManifestRuleViolations } from './manifest-rules.ts';
export {
  acceptsSigningProfile,
  SIGNING_PROFILE_DEFINITIONS,
  SIGNING_PROFILE_IDS,
  signingProfileId,
  signingProfilesOf,
  WEBHOOK_SIGNING_PROFILES,
  type SigningProfileDefinition,
  type WebhookSigningProfile,
} from './signing-profiles.ts';
