/**
 * The payload of a certification self-attestation (`ns.certification_attestation.v1`, CONTRACT section 14,
 * PREVIEW: may change incompatibly until the certification programme's suite is frozen, SPEC "Preview"). The
 * operator's service attests, under its own key, that this deployment passed the conformance report it names. It is
 * a SELF-attestation: no third party checked anything, and it carries no official badge.
 */
export const ATTESTATION_SCHEMA = 'ns.certification_attestation.v1';
export const ATTESTATION_PREFIX = 'ns:attestation:';
/** the JWS `cty` (RFC 7515 section 4.1.10): what the payload is */
export const ATTESTATION_CONTENT_TYPE = 'ns.certification_attestation.v1+json';

export interface AttestationClaims {
  schema_version: typeof ATTESTATION_SCHEMA;
  /** `ns:attestation:<uuid>` */
  attestation_id: string;
  kind: 'self_attestation';
  preview: true;
  /** the attesting deployment (its issuer URL: its JWKS verifies this JWS) */
  issuer: string;
  issued_at: string;
  /** RFC 7519-style seconds, for JOSE tooling; the same instant as `issued_at` */
  iat: number;
  server_version: string;
  conformance_report: {
    report_id: string;
    /** `sha-256:` + base64url of the signed report's RFC 8785 bytes: binds this attestation to that exact report */
    digest: string;
    passed: boolean;
    finished_at: string;
    kit: { version: string; digest: string };
    /** the profiles the report found conformant */
    conformant_profiles: string[];
  };
  statement: string;
}
