/**
 * The projection of evidence packs onto one framework's controls (`ns.compliance_projection.v1`, CONTRACT section
 * 13): the body `projectCompliance` computes, and the signed document the server wraps around it.
 * A stored format: change it additively only.
 */
import type { DocumentSignature } from '../signing/sign-document.ts';

export const COMPLIANCE_PROJECTION_SCHEMA = 'ns.compliance_projection.v1';

export type ControlStatus = 'satisfied' | 'partially_satisfied' | 'not_applicable' | 'gap';
export const CONTROL_STATUSES: readonly ControlStatus[] = ['satisfied', 'partially_satisfied', 'not_applicable', 'gap'];

export interface EvidenceReference {
  /** `ns:evidence-pack:<uuid>` */
  evidence_pack_id: string;
  /** RFC 6901 pointer into that pack; in `evidence` it always resolves inside the pack */
  pointer: string;
  note: string;
}

export interface ControlProjection {
  control_id: string;
  title: string;
  status: ControlStatus;
  /** why the status is not `satisfied` (always present for the other three) */
  reason?: string;
  packs: {
    /** packs the control concerns (its `applies_when`) */
    applicable: number;
    /** applicable packs holding every required piece of evidence */
    satisfying: number;
  };
  /** the values that satisfy the control, pack by pack, requirement by requirement */
  evidence: EvidenceReference[];
  /** the first requirements applicable packs failed (at most `MAX_UNMET`); the pointer is the template when absent */
  unmet: EvidenceReference[];
}

export interface RulePackReference {
  rule_pack_id: string;
  framework: string;
  version: string;
  /** `sha-256:` + base64url of the SHA-256 of the rule pack's RFC 8785 bytes */
  digest: string;
}

export interface ProjectionBody {
  framework: string;
  rule_pack: RulePackReference;
  /** the evidence pack ids projected, in order */
  evidence_pack_ids: string[];
  summary: Record<ControlStatus, number>;
  controls: ControlProjection[];
}

export interface UnsignedComplianceProjection extends ProjectionBody {
  schema_version: typeof COMPLIANCE_PROJECTION_SCHEMA;
  /** `ns:compliance_projection:<uuid>` */
  projection_id: string;
  issuer: string;
  generated_at: string;
  /** how the packs were chosen: by id, or the decisions made in [from, to) */
  selection: { evidence_pack_ids?: string[]; from?: string; to?: string };
}

export type ComplianceProjection = UnsignedComplianceProjection & { signature: DocumentSignature };
