/** The tables of agent metadata attestations (migration 0029), part of `Database` (schema.ts). Conventions as in schema.ts. */
export interface AgentMetadataAttestationsTable {
  /** `ns:agent_metadata:<uuidv7>` */
  attestation_id: string;
  /** `ns:entity:agent:<id>` */
  agent_entity_id: string;
  /** `sha-256:` + base64url of the RFC 8785 bytes of the signed document */
  digest: string;
  /** the signed `ns.agent_metadata_attestation.v1`, RFC 8785 text */
  document: string;
  model: string;
  software_version: string;
  operator: string;
  /** the document's own `issued_at` */
  issued_at: string;
  /** the agent's registered key (RFC 8785 text of the JWK) the signature verified against */
  public_key_jwk: string;
  audit_id: string;
  created_at: string;
}

export interface AgentMetadataTables {
  agent_metadata_attestations: AgentMetadataAttestationsTable;
}
