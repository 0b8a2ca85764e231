/**
 * The client's two failures: the service answered with an error (`AarApiError`, from its RFC 9457 problem document),
 * or no answer came (`AarNetworkError`). Branch on `code`, never on the message.
 * INVARIANT: neither ever holds the request's headers, so the bearer token cannot leak through a message, a log line
 * or a serialised error.
 */

/**
 * `{ path, message }`: a JSON pointer into the request (`/body/scope/valid_until`) and what is wrong there. A refused
 * mandate (422 `mandate_invalid`, CONTRACT 21) names each fault `{ path, code, detail }`: `code` and `detail` are
 * kept, and `message` is the detail when the service sent none.
 */
export interface ProblemFieldError {
  path: string;
  message: string;
  /** `mandate_invalid`: `issuer_key_unknown`, `signature_invalid`, `not_subset`... */
  code?: string;
  detail?: string;
}

/** The RFC 9457 problem document the service sends with every error. */
export interface ProblemDocument {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  instance?: string;
  request_id?: string;
  errors?: ProblemFieldError[];
  [member: string]: unknown;
}

export interface AarApiErrorInit {
  method: string;
  /** the path of the request, without its query */
  path: string;
  status: number;
  problem: ProblemDocument;
  requestId?: string | undefined;
  retryAfterMs?: number | undefined;
  attempts: number;
}

export class AarApiError extends Error {
  override readonly name = 'AarApiError';
  readonly status: number;
  /** the problem's stable `code` (`invalid_request`, `not_found`, `rate_limited`…), `http_<status>` when absent */
  readonly code: string;
  /** the fields at fault (validation errors); empty otherwise */
  readonly errors: ProblemFieldError[];
  /** the service's request id (problem `request_id` or `x-request-id`): quote it to the operator */
  readonly requestId: string | undefined;
  readonly problem: ProblemDocument;
  readonly method: string;
  readonly path: string;
  /** what `Retry-After` asked for, in milliseconds */
  readonly retryAfterMs: number | undefined;
  /** how many times the request was sent */
  readonly attempts: number;

  constructor(init: AarApiErrorInit) {
    const code = typeof init.problem.code === 'string' && init.problem.code ? init.problem.code : `http_${init.status}`;
    const detail = typeof init.problem.detail === 'string' ? init.problem.detail : init.problem.title;
    super(`${init.method} ${init.path}: ${init.status} ${code}${detail ? `: ${detail}` : ''}`);
    this.status = init.status;
    this.code = code;
    this.errors = Array.isArray(init.problem.errors) ? init.problem.errors.flatMap(toFieldError) : [];
    this.requestId = init.requestId;
    this.problem = init.problem;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts;
  }
}

export class AarNetworkError extends Error {
  override readonly name = 'AarNetworkError';
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  /** the attempt's own time limit ran out (as opposed to a refused or reset connection) */
  readonly timedOut: boolean;

  constructor(method: string, path: string, attempts: number, cause: unknown, timedOut: boolean) {
    super(`${method} ${path}: ${timedOut ? 'timed out' : `no response (${describe(cause)})`}`, { cause });
    this.method = method;
    this.path = path;
    this.attempts = attempts;
    this.timedOut = timedOut;
  }
}

function toFieldError(value: unknown): ProblemFieldError[] {
  if (typeof value !== 'object' || value === null) return [];
  const { path, message, code, detail } = value as Record<string, unknown>;
  if (typeof path !== 'string') return [];
  const text = typeof message === 'string' ? message : typeof detail === 'string' ? detail : undefined;
  if (text === undefined) return [];
  return [
    {
      ...(value as Record<string, unknown>),
      path,
      message: text,
      ...(typeof code === 'string' ? { code } : {}),
      ...(typeof detail === 'string' ? { detail } : {}),
    },
  ];
}

/** The innermost cause's code or message: `ECONNREFUSED`, `other side closed`… (fetch wraps them in TypeError). */
function describe(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  const code = (current as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return current instanceof Error ? current.message : String(current);
}
