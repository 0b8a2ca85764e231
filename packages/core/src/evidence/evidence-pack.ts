/**
 * The evidence pack `ns.evidence_pack.v1` (SPEC "Evidence pack", CONTRACT sections 4 and 8): one per decision, a
 * signed document that anyone can verify offline against the issuer's JWKS and replay. It carries the recorded
 * decision, the signed decision map, every fact decide read (request, snapshot, now), the engine version, and the
 * decision's audit entry (its exact bytes) with an inclusion proof up to a signed checkpoint.
 * A stored format read years later: change it additively only.
 */
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
}

export type EvidencePack = UnsignedEvidencePack & { signature: DocumentSignature };
