/**
 * The one error class of the project. Every refusal anywhere (core, server, CLI, SDK) is an AarError with a code
 * from the closed union below; the server maps codes to HTTP status in one place (server/src/http/problem.ts).
 * Messages are lowercase, without a final period, with user input in backticks.
 * Tests assert on `code` (and `errors[].path`), never on message text.
 */
export type ErrorCode =
  | 'invalid_json' // body is not strict JSON (duplicate keys, lone surrogates, unsafe numbers, bad nesting)
  | 'invalid_request' // schema validation failed; `errors` names every field
  | 'invalid_amount' // money amount not finite, not > 0, or more decimals than the currency has
  | 'unknown_currency' // not an ISO 4217 alpha-3 code we know
  | 'invalid_id' // malformed identifier
  | 'pan_refused' // a raw card number (12-19 digit Luhn-valid value) was sent
  | 'invalid_signature' // a signed document or request signature does not verify
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'conflict' // the resource already exists or its state forbids the change
  | 'idempotency_in_flight' // the first request with this Idempotency-Key is still running
  | 'idempotency_key_reused' // same Idempotency-Key, different request
  | 'idempotency_key_required' // a POST without Idempotency-Key by a credential whose connector requires one
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'reference_not_found' // a referenced resource (principal, card token, parent grant…) does not exist
  | 'reference_invalid' // a referenced resource exists but cannot be used (wrong type, inactive, other principal)
  | 'scope_not_subset' // a child grant is wider than its parent
  | 'mandate_invalid' // an AP2 mandate or ACP allowance refused; `errors[]` each `{ path, code, detail }` (CONTRACT 21)
  | 'idempotency_conflict' // ACP delegate_payment: the same Idempotency-Key with a different body (ACP's own code)
  | 'capability_not_enabled' // an opt-in capability (search, memory, reports) the deployment has not enabled (AAR_OPT_IN)
  | 'scope_missing' // the credential lacks the token scope an opt-in route needs (`memory.write`, ...)
  | 'artefact_not_executable' // a payload artefact executed without a matching allowed decision, or not `verified`
  | 'webhook_target_refused' // a webhook URL is not https or reaches a private, loopback or reserved address
  | 'rate_limited'
  | 'audit_unavailable' // fail closed: the audit chain cannot be written
  | 'storage_unavailable' // the database does not answer
  | 'internal';

export interface FieldError {
  /** JSON pointer into the request (RFC 6901), e.g. `/resource/amount`; `` for the whole body */
  path: string;
  message: string;
  /** a machine-readable refusal code of this item (a mandate's `issuer_key_unknown`, ...) where the error has one */
  code?: string;
  /** the item's detail where a contract names it so (CONTRACT 21: `{ path, code, detail }`) */
  detail?: string;
}

export interface AarErrorOptions {
  errors?: FieldError[];
  /** extra members for the problem document, e.g. `{ retry_after: 3 }` */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

export class AarError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: AarErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AarError';
    this.code = code;
    this.errors = options.errors;
    this.extra = options.extra;
  }
}

/** A refusal of one field: the message names the field and the error lists it, so clients can point at it. */
export function fieldError(code: ErrorCode, path: string, message: string): AarError {
  return new AarError(code, `${path || 'body'}: ${message}`, { errors: [{ path, message }] });
}

export function isAarError(value: unknown): value is AarError {
  return value instanceof AarError;
}
