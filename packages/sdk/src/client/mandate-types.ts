/**
 * Hand-written shapes of the mandate and allowance routes (CONTRACT section 21, DESIGN-29), until
 * `npm run sdk:generate` types them from docs/openapi.json. Names avoid the generator's `<Operation>Body|Query|
 * Response|Params`, so the generated types can land beside them without an ambiguous re-export. Answers that may
 * grow members (CONTRACT: changed additively only) keep an index signature.
 * Invariant: nothing here carries a card number; an ACP allowance binds the PSP's vaulted token id, and the service
 * refuses a `payment_method` member (400 `pan_refused` when it holds a card number).
 */
import type { MandateErrorCode } from '@aar/core';
import type { Operations } from '../generated/api-types.ts';

/** The grant made from a mandate or allowance, as `GET /v1/grants/{id}` shows it; its signed `link` carries
 * `mandate: { mandate_id, format, digest }`. */
export type MandateGrant = Operations['getGrant']['response'];

/** `active`, `revoked` (its grant was revoked), `expired` (past `expires_at`), `used` (a single-use one was used). */
export type MandateState = 'active' | 'revoked' | 'expired' | 'used';

/** POST /v1/mandate-issuers (admin): a trusted AP2 issuer, with its keys inline or where to fetch them once. */
export type MandateIssuerRegistration =
  | { issuer: string; format: 'ap2'; jwks: { keys: Array<Record<string, unknown>> }; jwks_uri?: never }
  | { issuer: string; format: 'ap2'; jwks_uri: string; jwks?: never };

/** A registered issuer (write-once; a second registration of the issuer is 409 `conflict`). */
export interface MandateIssuer {
  issuer: string;
  format: 'ap2';
  /** the keys as given inline or as fetched once from `jwks_uri` */
  jwks: { keys: Array<Record<string, unknown>> };
  jwks_uri: string | null;
  /** the audit entry committing to the registration */
  audit_ref: string;
  created_at: string;
  [member: string]: unknown;
}

/** POST /v1/mandates: an AP2 presentation (open, closed, or `open~~closed`) made a grant under `parent_grant_id`. */
export interface MandateCreation {
  format: 'ap2';
  presentation: string;
  /** the principal's grant the mandate is delegated under (the subset rule holds against it) */
  parent_grant_id: string;
  /** the agent entity the mandate-derived grant is for */
  actor_entity_id: string;
  /** AP2 payee id -> the service's merchant id (`ns:merchant:...`), for `payment.allowed_payees` */
  payees?: Record<string, string>;
}

/** What a mandate and an allowance both answer. */
interface MandateCommon {
  /** base64url SHA-256 of the stored document (AP2: the presentation as submitted; ACP: RFC 8785 of the allowance) */
  digest: string;
  principal_entity_id: string;
  /** the agent holding the grant */
  actor_entity_id: string;
  parent_grant_id: string;
  /** the constraints as recorded with the mandate */
  constraints: unknown[];
  checkout_session_id: string | null;
  /** its grant allows one purchase */
  single_use: boolean;
  expires_at: string | null;
  /** the allowed decision that spent a single-use one */
  used_by: string | null;
  state: MandateState;
  created_at: string;
  grant: MandateGrant;
  [member: string]: unknown;
}

export interface Mandate extends MandateCommon {
  /** `ns:mandate:<uuid>` */
  mandate_id: string;
  format: 'ap2';
  issuer: string | null;
  /** AP2 payee id -> merchant id, as given */
  payees: Record<string, string>;
}

/** POST /v1/mandates/{id}/revoke and /v1/allowances/{id}/revoke: the revocation of its grant, as
 * POST /v1/grants/{id}/revoke answers it (`mandate_id` holds the allowance id for an allowance). */
export interface MandateRevocation {
  mandate_id: string;
  state: 'revoked';
  grant: {
    grant_id: string;
    state: 'revoked';
    revoked_count: number;
    already_revoked: boolean;
    revoked_at: string;
    reason_code: string | null;
    audit_ref: string | null;
    elapsed_ms: number;
  };
  [member: string]: unknown;
}

/** One refusal of a mandate (422 `mandate_invalid`): `path` is a JSON pointer into the request. */
export interface MandateRefusal {
  path: string;
  code: MandateErrorCode;
  detail: string;
}

/** An ACP `delegate_payment` allowance: `max_amount` in minor units. */
export interface AcpAllowance {
  reason: string;
  max_amount: number;
  currency: string;
  checkout_session_id: string;
  merchant_id: string;
  expires_at: string;
  [member: string]: unknown;
}

/**
 * POST /v1/allowances: a one-use grant bound to the checkout session and the PSP's vaulted token. ACP's idempotency
 * rules hold: the client sends an Idempotency-Key on every POST (pass `idempotencyKey` to choose it); the same key
 * with another body is 422 `idempotency_conflict`.
 */
export interface AllowanceCreation {
  format: 'acp';
  allowance: AcpAllowance;
  /** ACP risk signals, e.g. `{ type: "card_testing", score: 10, action: "authorized" }` */
  risk_signals?: Array<{ type: string; score: number; action: string }>;
  metadata?: Record<string, string>;
  vaulted_token_id: string;
  parent_grant_id: string;
  actor_entity_id: string;
}

export interface Allowance extends MandateCommon {
  /** `ns:allowance:<uuid>` */
  allowance_id: string;
  format: 'acp';
  /** the PSP's vaulted token id */
  vaulted_token_id: string | null;
}

/** The `mandate` member of an authorize: a stored mandate or allowance by id, or the closed presentation itself. */
export type AuthorizeMandate = { mandate_id: string } | { presentation: string };
