/**
 * The evidence pack `ns.evidence_pack.v1` (SPEC "Evidence pack", CONTRACT sections 4 and 8): one per decision, a
 * signed document that anyone can verify offline against the issuer's JWKS and replay. It carries the recorded
 * decision, the signed decision map, every fact decide read (request, snapshot, now), the engine version, and the
 * decision's audit entry (its exact bytes) with an inclusion proof up to a signed checkpoint.
 * A stored format read years later: change it additively only.
 */
import type { AgentMetadataAttestation } from '../agent-metadata/attestation.ts';
import type { DecisionRequest, DecisionResult, DecisionSnapshot } from '../decide/types.ts';
import type { UnsignedDecisionMap } from '../decision-map/types.ts';
import type { CheckpointJson } from '../merkle/checkpoint-json.ts';
import type { InclusionProofJson } from '../merkle/inclusion-proof-json.ts';
import type { DocumentSignature } from '../signing/sign-document.ts';

export const EVIDENCE_PACK_SCHEMA = 'ns.evidence_pack.v1';

export interface UnsignedEvidencePack {
  schema_version: typeof EVIDENCE_PACK_SCHEMA;
  /** `ns:evidence-pack:<uuid>`, the decision's `evidence_refs[0]` */
  evidence_pack_id: string;
  /** `ns:decision:<uuid>` */
  policy_decision_id: string;
  /** when the pack was assembled (ISO 8601 UTC); not when the decision was made (that is `now`) */
  issued_at: string;
  /** the issuer URL: its JWKS is `{issuer}/.well-known/jwks.json` (a hint; verifiers pin their own JWKS) */
  issuer: string;
  /** the recorded result of `decide(request, snapshot, now)` */
  decision: DecisionResult;
  /** the signed decision map */
  decision_map: UnsignedDecisionMap & { signature: DocumentSignature };
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  now: string;
  engine_version: string;
  /** the exact bytes (UTF-8 text, RFC 8785 JSON) of the decision's `ns.audit_entry.v1` leaf */
  audit_entry: string;
  /** proves the entry is leaf `leaf_index` of the tree the checkpoint signs */
  inclusion_proof: InclusionProofJson;
  /** the signed checkpoint of size `inclusion_proof.tree_size` */
  checkpoint: CheckpointJson & { signature: DocumentSignature };
  /**
   * Issue 29 (additive): the mandate or allowance of every grant of the snapshot's chains that carries a `mandate`
   * binding, so the pack proves what the principal signed (verify-pack-mandates.ts). Absent when none does.
   */
  mandates?: EvidenceMandate[];
  /**
   * Issue 30 (additive, aar-decide/1.5.0): the agent's signed metadata attestation the snapshot's `agent_metadata`
   * names by digest, exactly as the agent signed it (verify-pack-agent-metadata.ts). Absent when none was attested.
   */
  agent_metadata_attestation?: AgentMetadataAttestation;
}

/** One mandate of an evidence pack (DESIGN-29 section 8). */
export interface EvidenceMandate {
  /** `ns:mandate:<uuid>` or `ns:allowance:<uuid>`: the snapshot binding's */
  mandate_id: string;
  format: 'ap2' | 'acp';
  /** the binding's digest: base64url SHA-256 of `document` */
  digest: string;
  /** AP2: the presentation as registered; ACP: the RFC 8785 text of the allowance */
  document: string;
  /** AP2: the issuer whose key signed hop 0 */
  issuer?: string;
  /** AP2: the issuer's JWKS as the service trusted it (its `mandate_issuers` row) */
  issuer_jwks?: { keys: Array<Record<string, unknown>> };
  /** AP2: the closed presentation of this purchase (`document` + '~' + the closing hop), when the request presented one */
  presented?: string;
}

export type EvidencePack = UnsignedEvidencePack & { signature: DocumentSignature };
