import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AarError, type ErrorCode } from '@aar/core';
import { PROBLEM_TYPE_PREFIX, STATUS_BY_CODE } from '../../src/http/problem.ts';
import { toAarError } from '../../src/http/error-mapping.ts';
import { buildHarness, type Harness } from './gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await buildHarness();
});
afterAll(async () => {
  await h.close();
});

function problemOf(response: { headers: Record<string, unknown>; json: () => unknown }): Record<string, unknown> {
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  return response.json() as Record<string, unknown>;
}

describe('problem documents', () => {
  it('maps every error code to the status the contract fixes', () => {
    const expected: Record<number, ErrorCode[]> = {
      400: [
        'invalid_json',
        'invalid_request',
        'invalid_amount',
        'unknown_currency',
        'invalid_id',
        'pan_refused',
        'invalid_signature',
        'idempotency_key_required',
      ],
      401: ['unauthenticated'],
      403: ['forbidden', 'capability_not_enabled', 'scope_missing'],
      404: ['not_found', 'route_not_found'],
      405: ['method_not_allowed'],
      409: ['conflict', 'idempotency_in_flight'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      422: [
        'reference_not_found',
        'reference_invalid',
        'scope_not_subset',
        'mandate_invalid',
        'idempotency_key_reused',
        'idempotency_conflict',
        'artefact_not_executable',
        'webhook_target_refused',
      ],
      429: ['rate_limited'],
      500: ['internal'],
      503: ['audit_unavailable', 'storage_unavailable'],
    };
    const flat = Object.entries(expected).flatMap(([status, codes]) => codes.map((c) => [c, Number(status)] as const));
    expect(Object.fromEntries(flat)).toEqual(STATUS_BY_CODE);
  });

  it('answers an unknown route with a 404 route_not_found problem, even without credentials', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/nothing-here?x=1' });
    expect(res.statusCode).toBe(404);
    const problem = problemOf(res);
    expect(problem).toMatchObject({
      type: `${PROBLEM_TYPE_PREFIX}route_not_found`,
      status: 404,
      code: 'route_not_found',
      instance: '/v1/nothing-here',
    });
    expect(problem.request_id).toBe(res.headers['x-request-id']);
    expect(typeof problem.title).toBe('string');
    expect(typeof problem.detail).toBe('string');
  });

  it('answers an unexpected error with 500 internal and leaks nothing of it', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/test/crash', headers: h.auth(h.tokens.runtime) });
    expect(res.statusCode).toBe(500);
    const problem = problemOf(res);
    expect(problem.code).toBe('internal');
    expect(res.body).not.toContain('disk full');
    expect(res.body).not.toContain('/var/lib');
    expect(String(problem.detail)).toContain(String(problem.request_id));
  });

  it('passes an AarError through with its own status and code', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/test/conflict', headers: h.auth(h.tokens.runtime) });
    expect(res.statusCode).toBe(409);
    expect(problemOf(res).code).toBe('conflict');
  });

  it('names the missing field of a body validation error', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: h.auth(h.tokens.runtime),
      payload: { n: 'three', extra: true },
    });
    expect(res.statusCode).toBe(400);
    const problem = problemOf(res);
    expect(problem.code).toBe('invalid_request');
    const paths = (problem.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['/extra', '/n', '/name']);
  });

  it('prefixes query-string validation errors with /query', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/test/query?limit=0', headers: h.auth(h.tokens.runtime) });
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).errors).toEqual([{ path: '/query/limit', message: expect.any(String) }]);
  });

  it('keeps a sane incoming request id and replaces a hostile one', async () => {
    const kept = await h.app.inject({
      method: 'GET',
      url: '/test/public',
      headers: { 'x-request-id': 'trace.abc-123_Z' },
    });
    expect(kept.headers['x-request-id']).toBe('trace.abc-123_Z');
    const replaced = await h.app.inject({
      method: 'GET',
      url: '/nope',
      headers: { 'x-request-id': 'evil"\\ id' },
    });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(problemOf(replaced).request_id).toBe(replaced.headers['x-request-id']);
  });
});

describe('toAarError', () => {
  it('maps Fastify body errors by code and everything unknown to internal', () => {
    expect(
      toAarError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).code,
    ).toBe('payload_too_large');
    expect(toAarError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' })).code).toBe(
      'unsupported_media_type',
    );
    expect(toAarError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_EMPTY_JSON_BODY' })).code).toBe(
      'invalid_json',
    );
    expect(toAarError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' })).code).toBe(
      'invalid_request',
    );
    expect(toAarError(new TypeError('boom')).code).toBe('internal');
    expect(toAarError('a string').code).toBe('internal');
    const ours = new AarError('forbidden', 'no');
    expect(toAarError(ours)).toBe(ours);
  });

  it('reads TypeBox-style validation errors too, naming each required property', () => {
    const error = Object.assign(new Error('x'), {
      code: 'FST_ERR_VALIDATION',
      validationContext: 'body',
      validation: [
        { keyword: 'required', instancePath: '/resource', params: { requiredProperties: ['amount', 'currency'] } },
        { keyword: 'additionalProperties', instancePath: '', params: { additionalProperties: ['a/b'] } },
      ],
    });
    expect(toAarError(error).errors?.map((e) => e.path)).toEqual(['/resource/amount', '/resource/currency', '/a~1b']);
  });
});
