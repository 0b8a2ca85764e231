/**
 * The stored form of an accepted agent metadata attestation (migration 0029) and its API view. `ns:agent_metadata:<uuid>`
 * ids are minted here (core's MintedKind list is closed to this other parts).
 */
import type { AgentMetadataAttestation } from '@aar/core';
import type { Selectable } from 'kysely';
import type { AgentMetadataAttestationsTable } from '../../store/schema-agent-metadata.ts';

export const ATTESTATION_ID_PREFIX = 'ns:agent_metadata:';

export type AttestationRow = Selectable<AgentMetadataAttestationsTable>;

export interface AttestationView {
  attestation_id: string;
  agent_entity_id: string;
  model: string;
  software_version: string;
  operator: string;
  issued_at: string;
  /** `sha-256:` + base64url of the RFC 8785 bytes of `document` */
  digest: string;
  /** the signed document exactly as accepted */
  document: AgentMetadataAttestation;
  audit_ref: string;
  created_at: string;
}

export function attestationView(row: AttestationRow): AttestationView {
  return {
    attestation_id: row.attestation_id,
    agent_entity_id: row.agent_entity_id,
    model: row.model,
    software_version: row.software_version,
    operator: row.operator,
    issued_at: row.issued_at,
    digest: row.digest,
    document: JSON.parse(row.document) as AgentMetadataAttestation,
    audit_ref: row.audit_id,
    created_at: row.created_at,
  };
}
