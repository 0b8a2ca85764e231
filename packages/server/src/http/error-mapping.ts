/**
 * Everything thrown inside the HTTP layer, as an AarError: ours pass through, Fastify's own errors are mapped by
 * their code, anything else is `internal`. Framework messages are not passed on (some embed request input);
 * the Fastify code is named instead.
 */
import { AarError, type ErrorCode } from '@aar/core';
import { fieldErrorsFromValidation } from './validation-errors.ts';

interface FrameworkError {
  code?: unknown;
  statusCode?: unknown;
  validation?: unknown;
  validationContext?: unknown;
}

const CODE_BY_FASTIFY_CODE: Readonly<Record<string, [ErrorCode, string]>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'request body is larger than the limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'send `application/json`'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'body is not valid json'],
};

const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export function toAarError(error: unknown): AarError {
  if (error instanceof AarError) return error;
  if (typeof error !== 'object' || error === null) return internal(error);
  const { code, statusCode, validation, validationContext } = error as FrameworkError;
  if (code === 'FST_ERR_VALIDATION' && Array.isArray(validation)) {
    const context = typeof validationContext === 'string' ? validationContext : undefined;
    const errors = fieldErrorsFromValidation(validation, context);
    return new AarError('invalid_request', `request ${context ?? 'body'} does not match the schema`, {
      errors,
      cause: error,
    });
  }
  if (typeof code === 'string') {
    const known = CODE_BY_FASTIFY_CODE[code];
    if (known) return new AarError(known[0], known[1], { cause: error });
    if (code.startsWith('FST_ERR_CTP_')) {
      return new AarError('invalid_request', `request body cannot be read (\`${code}\`)`, { cause: error });
    }
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const label = typeof code === 'string' ? code : String(statusCode);
    return new AarError(CODE_BY_STATUS[statusCode] ?? 'invalid_request', `request refused (\`${label}\`)`, {
      cause: error,
    });
  }
  return internal(error);
}

function internal(cause: unknown): AarError {
  return new AarError('internal', 'internal error', { cause });
}
