/**
 * RFC 9457 problem documents: the one place where error codes meet HTTP status codes (CONTRACT section 7).
 *
 * `type` is `urn:aar:problem:<code>`, e.g. `urn:aar:problem:invalid_json`. A URN, not a URL: it names the problem
 * stably without promising a page at a domain the project does not control; the codes are listed in docs/errors.md.
 * Clients branch on `code` (equal to the type's last segment), never on `title` or `detail`.
 */
import { maskDigitRuns } from './pan-in-url.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode, FieldError } from '@aar/core';
import { toAarError } from './error-mapping.ts';

export const PROBLEM_TYPE_PREFIX = 'urn:aar:problem:';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_amount: 400,
  unknown_currency: 400,
  invalid_id: 400,
  pan_refused: 400,
  invalid_signature: 400,
  unauthenticated: 401,
  forbidden: 403,
  capability_not_enabled: 403,
  scope_missing: 403,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_in_flight: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  reference_not_found: 422,
  reference_invalid: 422,
  scope_not_subset: 422,
  mandate_invalid: 422,
  idempotency_conflict: 422,
  artefact_not_executable: 422,
  webhook_target_refused: 422,
  idempotency_key_reused: 422,
  idempotency_key_required: 400,
  rate_limited: 429,
  internal: 500,
  audit_unavailable: 503,
  storage_unavailable: 503,
};

/** One title per code: RFC 9457 wants the same title for every occurrence of a type. */
const TITLE_BY_CODE: Readonly<Record<ErrorCode, string>> = {
  invalid_json: 'Invalid JSON',
  invalid_request: 'Invalid request',
  invalid_amount: 'Invalid amount',
  unknown_currency: 'Unknown currency',
  invalid_id: 'Invalid identifier',
  pan_refused: 'Card number refused',
  invalid_signature: 'Invalid signature',
  unauthenticated: 'Unauthenticated',
  forbidden: 'Forbidden',
  capability_not_enabled: 'Capability not enabled',
  scope_missing: 'Token scope missing',
  not_found: 'Not found',
  route_not_found: 'Route not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  idempotency_in_flight: 'Idempotent request still in flight',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  reference_not_found: 'Referenced resource not found',
  reference_invalid: 'Referenced resource unusable',
  scope_not_subset: 'Scope wider than its parent',
  mandate_invalid: 'Mandate refused',
  idempotency_conflict: 'Idempotency key conflict',
  artefact_not_executable: 'Payload artefact not executable',
  webhook_target_refused: 'Webhook target refused',
  idempotency_key_reused: 'Idempotency key reused',
  idempotency_key_required: 'Idempotency key required',
  rate_limited: 'Too many requests',
  internal: 'Internal error',
  audit_unavailable: 'Audit unavailable',
  storage_unavailable: 'Storage unavailable',
};

const STANDARD_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'instance', 'request_id', 'errors']);

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  /** the request path, without the query string (which may hold secrets) */
  instance: string;
  request_id: string;
  errors?: FieldError[];
  /** extension members (RFC 9457 section 3.2), e.g. `retry_after` */
  [extension: string]: unknown;
}

/**
 * The problem document for any thrown value. Only AarErrors speak to the client: anything unexpected becomes
 * `internal` with a fixed detail, so no stack, SQL or file path leaks; the cause is logged with the request id.
 */
export function problemFrom(error: unknown, request: FastifyRequest): ProblemDocument {
  const aar = toAarError(error);
  const status = STATUS_BY_CODE[aar.code];
  const problem: ProblemDocument = {
    type: `${PROBLEM_TYPE_PREFIX}${aar.code}`,
    title: TITLE_BY_CODE[aar.code],
    status,
    detail:
      aar.code === 'internal' ? `internal error; quote request id \`${request.id}\` when reporting it` : aar.message,
    code: aar.code,
    instance: pathOf(request.url),
    request_id: String(request.id),
  };
  if (aar.errors && aar.errors.length > 0) {
    // `code` and `detail` only where an item has them (a mandate's refusal reasons, CONTRACT 21)
    problem.errors = aar.errors.map(({ path, message, code, detail }) => ({
      path,
      message,
      ...(code === undefined ? {} : { code }),
      ...(detail === undefined ? {} : { detail }),
    }));
  }
  for (const [name, value] of Object.entries(aar.extra ?? {})) {
    if (!STANDARD_MEMBERS.has(name)) problem[name] = value;
  }
  return problem;
}

/** Sends a problem document, with the headers its status requires (RFC 6750 challenge, Retry-After). */
export function sendProblem(reply: FastifyReply, problem: ProblemDocument): FastifyReply {
  reply.code(problem.status).header('content-type', PROBLEM_CONTENT_TYPE);
  if (problem.code === 'unauthenticated' && !reply.hasHeader('www-authenticate')) {
    reply.header('www-authenticate', 'Bearer');
  }
  if (typeof problem.retry_after === 'number') reply.header('retry-after', String(problem.retry_after));
  // A string payload bypasses any response schema of the route: the problem is sent exactly as built here.
  return reply.send(JSON.stringify(problem));
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return maskDigitRuns(q === -1 ? url : url.slice(0, q));
}
