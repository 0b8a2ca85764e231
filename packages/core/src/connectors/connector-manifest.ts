/**
 * The connector manifest (`ns.connector_manifest.v1`, SPEC "Connector manifest", CONTRACT section 15): the spec's
 * fields exactly, no more. The spec leaves the value sets of `connector_type`, `category`, `risk_level`,
 * `side_effect_level` and `status` open; these closed lists are ours (docs/connectors.md), and the published JSON
 * Schema (packages/server/schemas/ns.connector_manifest.v1.schema.json) holds the same lists.
 */

/** The family is the second segment of `ns:connector:<family>:<name>`; a manifest's `category` names it too. */
export const CONNECTOR_FAMILIES = ['payments', 'banking', 'agents', 'risk', 'compliance', 'operations'] as const;
export type ConnectorFamily = (typeof CONNECTOR_FAMILIES)[number];

/** Each connector type belongs to exactly one family. */
export const CONNECTOR_TYPES = {
  internet_payment_gateway: 'payments',
  issuer_processor: 'payments',
  network_token_service: 'payments',
  dispute_management: 'payments',
  banking_app: 'banking',
  wallet: 'banking',
  agent_platform: 'agents',
  merchant_platform: 'agents',
  risk_signal: 'risk',
  identity_verification: 'risk',
  compliance_archive: 'compliance',
  siem: 'compliance',
  ticketing: 'operations',
  notification: 'operations',
} as const satisfies Record<string, ConnectorFamily>;
export type ConnectorType = keyof typeof CONNECTOR_TYPES;

export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** In increasing order of what a connector's actions can change outside the service. */
export const SIDE_EFFECT_LEVELS = ['read_only', 'notify', 'write_external', 'state_change', 'move_money'] as const;
export type SideEffectLevel = (typeof SIDE_EFFECT_LEVELS)[number];

export const CONNECTOR_STATUSES = ['active', 'beta', 'deprecated'] as const;
export type ConnectorStatus = (typeof CONNECTOR_STATUSES)[number];

export const CONNECTOR_ID_PATTERN = '^ns:connector:[a-z][a-z0-9_]{0,31}:[A-Za-z0-9._-]{1,128}$';

export interface ConnectorRisk {
  risk_level: RiskLevel;
  side_effect_level: SideEffectLevel;
  requires_signature_verification: boolean;
  requires_idempotency: boolean;
  requires_audit_event: boolean;
}

export interface ConnectorManifest {
  schema_version: 'ns.connector_manifest.v1';
  /** `ns:connector:<family>:<name>` */
  connector_id: string;
  name: string;
  connector_type: ConnectorType;
  /** the family, as in the id */
  category: ConnectorFamily;
  /** semantic version of the connector */
  version: string;
  supported_profiles: string[];
  risk: ConnectorRisk;
  events: { subscribes_to: string[]; publishes: string[] };
  status: ConnectorStatus;
}

/** The family segment of a connector id, or undefined when `id` is not `ns:connector:<family>:<name>`. */
export function connectorFamilyOf(id: string): string | undefined {
  if (!new RegExp(CONNECTOR_ID_PATTERN).test(id)) return undefined;
  return id.split(':')[2];
}
