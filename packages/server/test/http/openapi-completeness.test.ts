/**
 * The OpenAPI document is what client generators live on: every operation of the real app (and of the audit app)
 * must carry a summary, a description of its own, a unique camelCase operationId, the roles that may call it, a
 * success answer and a problem+json answer for every status its kind implies, and the contract's closed sets must
 * be enums. A failure names the operation and what it lacks.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_CODES, type ErrorCode } from '@aar/core';
import { buildAuditApp } from '../../src/audit/audit-app.ts';
import { STATUS_BY_CODE } from '../../src/http/problem.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
};
type Response = { description?: string; content?: Record<string, { schema?: Schema & { $ref?: string } }> };
type Parameter = { in: string; name: string; schema?: Schema };
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  'x-roles'?: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
};
type Doc = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const ROLES = ['admin', 'runtime', 'principal', 'auditor', 'pep'];
/** health and metrics opt out of the rate limit (a monitor must not be throttled into alarms): no 429 */
const NEVER_RATE_LIMITED = new Set(['/healthz', '/metrics']);

let rt: TestRuntime;
let auditApp: FastifyInstance;
let doc: Doc;
let auditDoc: Doc;

beforeAll(async () => {
  rt = await startTestRuntime();
  auditApp = await buildAuditApp(rt.ctx);
  // the document as a client fetches it, not the in-memory object
  const res = await rt.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json() as Doc;
  const audit = await auditApp.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(audit.statusCode).toBe(200);
  auditDoc = audit.json() as Doc;
});

afterAll(async () => {
  await auditApp?.close();
  await rt?.close();
});

function operations(d: Doc): Array<{ name: string; path: string; method: string; op: Operation }> {
  const out = [];
  for (const [path, item] of Object.entries(d.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      out.push({ name: `${method.toUpperCase()} ${path} (${op.operationId ?? 'no operationId'})`, path, method, op });
    }
  }
  return out;
}

/** The description without the roles line the document appends to every operation. */
function ownDescription(op: Operation): string {
  return (op.description ?? '').replace(/\n*(Roles: .*|Public: no token needed\.)$/s, '').trim();
}

/** The statuses an operation must document a problem for, from what it is (authenticated, inputs, path ids, POST). */
function impliedProblemStatuses(path: string, method: string, op: Operation): number[] {
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  const params = op.parameters ?? [];
  const hasInput = op.requestBody !== undefined || params.some((p) => p.in === 'query' || p.in === 'path');
  const statuses = [500, 503];
  if (!isPublic) statuses.push(401, 403);
  if (hasInput) statuses.push(400);
  if (params.some((p) => p.in === 'path')) statuses.push(404);
  if (method === 'post') statuses.push(409, 422);
  if (op.requestBody !== undefined) statuses.push(413, 415);
  if (!NEVER_RATE_LIMITED.has(path)) statuses.push(429);
  return statuses.sort((a, b) => a - b);
}

/** The error codes a problem response lists: "Problem (RFC 9457), `code` one of: `a`, `b`". */
function codesIn(description: string | undefined): string[] {
  const list = (description ?? '').split('one of:')[1] ?? '';
  return [...list.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
}

/** Every gap of one operation, as readable phrases. */
function gapsOf(path: string, method: string, op: Operation): string[] {
  const gaps: string[] = [];
  if (typeof op.summary !== 'string' || op.summary.trim() === '') gaps.push('summary');
  const own = ownDescription(op);
  if (own.length < 60 || own === op.summary) gaps.push('a description of its own (beyond the summary and roles line)');
  if (typeof op.operationId !== 'string' || !/^[a-z][a-zA-Z0-9]+$/.test(op.operationId)) {
    gaps.push('a camelCase operationId');
  }
  const roles = op['x-roles'];
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  if (!Array.isArray(roles) || roles.length === 0) gaps.push('x-roles');
  else if (isPublic ? roles.join() !== 'public' : !roles.every((r) => ROLES.includes(r)) || !roles.includes('admin')) {
    gaps.push(`x-roles consistent with its security (has ${roles.join(', ')})`);
  }
  if (!Object.keys(op.responses).some((status) => /^2\d\d$/.test(status))) gaps.push('a 2xx success response');
  for (const status of impliedProblemStatuses(path, method, op)) {
    const response = op.responses[String(status)];
    if (response?.content?.['application/problem+json'] === undefined) {
      gaps.push(`a problem+json ${status} response`);
      continue;
    }
    const codes = codesIn(response.description) as ErrorCode[];
    if (codes.length === 0) gaps.push(`the error codes of its ${status} response`);
    const misplaced = codes.filter((code) => STATUS_BY_CODE[code] !== status);
    if (misplaced.length > 0) gaps.push(`${status} codes that answer ${status} (not ${misplaced.join(', ')})`);
  }
  return gaps;
}

function schemaAt(d: Doc, path: string, method: string, where: string): Schema {
  const op = d.paths[path]?.[method];
  if (op === undefined) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  if (where === 'body') {
    const schema = op.requestBody?.content['application/json']?.schema;
    if (schema === undefined) throw new Error(`${method.toUpperCase()} ${path} has no JSON body`);
    return schema;
  }
  const schema = op.responses[where]?.content?.['application/json']?.schema;
  if (schema === undefined) throw new Error(`${method.toUpperCase()} ${path} has no JSON ${where} response`);
  return schema;
}

/** Follows `properties` and array `items` (for `items.state` of a page, write `items.*.state`). */
function member(schema: Schema, pointer: string): Schema {
  let node: Schema | undefined = schema;
  for (const key of pointer.split('.')) {
    if (key === '*') node = node?.items;
    else node = node?.properties?.[key] ?? node?.allOf?.map((s) => s.properties?.[key]).find((s) => s !== undefined);
    if (node === undefined) throw new Error(`no member ${pointer}`);
  }
  return node;
}

/** The string values an enum-typed member allows (a nullable enum is `anyOf [enum, null]`). */
function enumOf(schema: Schema): string[] {
  const typed = schema.enum ? schema : schema.anyOf?.find((s) => s.enum !== undefined);
  expect(typed?.type, 'an enum states its type').toBe('string');
  return [...((typed?.enum ?? []) as string[])].sort();
}

function queryParam(d: Doc, path: string, name: string): Schema {
  const param = d.paths[path]?.get?.parameters?.find((p) => p.in === 'query' && p.name === name);
  if (param?.schema === undefined) throw new Error(`GET ${path} has no query parameter ${name}`);
  return param.schema;
}

describe('every operation of the OpenAPI document', () => {
  it('has a summary, a description, a unique operationId, its roles, a success and each implied problem response', () => {
    for (const [label, d] of [
      ['serve', doc],
      ['audit-serve', auditDoc],
    ] as const) {
      const ops = operations(d);
      expect(ops.length, `${label} documents operations`).toBeGreaterThan(label === 'serve' ? 50 : 7);
      const gaps = ops.flatMap(({ name, path, method, op }) =>
        gapsOf(path, method, op).map((gap) => `${label}: ${name} lacks ${gap}`),
      );
      expect(gaps).toEqual([]);
      const ids = ops.map(({ op }) => op.operationId);
      const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
      expect(repeated, `${label}: operationIds used twice`).toEqual([]);
    }
  });

  it('gives the operationIds a client generator names its methods by', () => {
    const byId = new Map(operations(doc).map(({ path, method, op }) => [op.operationId, `${method} ${path}`]));
    expect(byId.get('authorize')).toBe('post /v1/runtime/authorize');
    expect(byId.get('recordOutcome')).toBe('post /v1/runtime/outcomes');
    expect(byId.get('createGrant')).toBe('post /v1/grants');
    expect(byId.get('revokeGrant')).toBe('post /v1/grants/{id}/revoke');
    expect(byId.get('getGrantChain')).toBe('get /v1/grants/{id}/chain');
    expect(byId.get('suspendEntity')).toBe('post /v1/entities/{id}/suspend');
    expect(byId.get('activateCardToken')).toBe('post /v1/card-tokens/{id}/activate');
    expect(byId.get('verifyAuditLog')).toBe('get /v1/audit/verify');
    expect(byId.get('getInclusionProof')).toBe('get /v1/audit/proofs/inclusion');
    expect(byId.get('listEventTypes')).toBe('get /v1/event-types');
  });

  it('lists the route-specific error codes a service can give', () => {
    const codesOf = (path: string, method: string, status: number): string[] => {
      return codesIn(doc.paths[path]?.[method]?.responses[String(status)]?.description);
    };
    expect(codesOf('/v1/grants', 'post', 422)).toEqual(
      expect.arrayContaining(['scope_not_subset', 'reference_not_found', 'reference_invalid']),
    );
    expect(codesOf('/v1/grants', 'post', 400)).toEqual(
      expect.arrayContaining(['invalid_amount', 'unknown_currency', 'invalid_id', 'invalid_signature']),
    );
    expect(codesOf('/v1/grants', 'post', 409)).toContain('conflict');
    expect(codesOf('/v1/runtime/authorize', 'post', 400)).toEqual(
      expect.arrayContaining(['invalid_amount', 'unknown_currency', 'invalid_id', 'pan_refused']),
    );
    expect(codesOf('/v1/runtime/outcomes', 'post', 404)).toEqual(['not_found']);
    expect(codesOf('/v1/runtime/outcomes', 'post', 409)).toContain('conflict');
    expect(codesOf('/v1/entities', 'post', 409)).toContain('conflict');
    expect(codesOf('/v1/webhook-endpoints', 'post', 422)).toContain('webhook_target_refused');
    // a write answers 503 audit_unavailable (fail closed); a plain read does not claim it
    expect(codesOf('/v1/entities', 'post', 503)).toEqual(['audit_unavailable', 'storage_unavailable']);
    expect(codesOf('/v1/entities', 'get', 503)).toEqual(['storage_unavailable']);
    // health is never rate limited, so it does not promise a 429
    expect(doc.paths['/healthz']?.get?.responses['429']).toBeUndefined();
  });
});

describe('the closed sets of the contract', () => {
  it('authorize answers one of the three decisions with one of the contract reason codes', () => {
    const answer = schemaAt(doc, '/v1/runtime/authorize', 'post', '200');
    expect(enumOf(member(answer, 'decision'))).toEqual(['allow_with_constraints', 'deny', 'require_approval']);
    expect(enumOf(member(answer, 'reason'))).toEqual(Object.keys(REASON_CODES).sort());
    expect(enumOf(member(answer, 'approval.status'))).toEqual(
      ['approved', 'consumed', 'expired', 'pending', 'rejected'].sort(),
    );
    const decision = schemaAt(doc, '/v1/decisions/{id}', 'get', '200');
    expect(enumOf(member(decision, 'decision'))).toEqual(['allow_with_constraints', 'deny', 'require_approval']);
    expect(enumOf(member(decision, 'reason'))).toEqual(Object.keys(REASON_CODES).sort());
    const policy = schemaAt(doc, '/v1/policies/{id}', 'get', '200');
    expect(enumOf(member(policy, 'conclusion.*.reason'))).toEqual(Object.keys(REASON_CODES).sort());
  });

  it('closes roles, states and outcomes in requests and answers', () => {
    const roles = [...ROLES].sort();
    expect(enumOf(member(schemaAt(doc, '/v1/tokens', 'post', 'body'), 'role'))).toEqual(roles);
    expect(enumOf(member(schemaAt(doc, '/v1/tokens', 'post', '201'), 'role'))).toEqual(roles);
    expect(enumOf(member(schemaAt(doc, '/v1/tokens', 'get', '200'), 'items.*.role'))).toEqual(roles);

    const entityStates = ['active', 'suspended', 'tombstoned'];
    expect(enumOf(member(schemaAt(doc, '/v1/entities/{id}', 'get', '200'), 'state'))).toEqual(entityStates);
    expect(enumOf(queryParam(doc, '/v1/entities', 'state'))).toEqual(entityStates);
    expect(enumOf(member(schemaAt(doc, '/v1/entities', 'post', 'body'), 'type'))).toEqual([
      'agent',
      'organisation',
      'person',
    ]);

    expect(enumOf(member(schemaAt(doc, '/v1/grants/{id}', 'get', '200'), 'state'))).toEqual(['active', 'revoked']);
    expect(enumOf(queryParam(doc, '/v1/grants', 'state'))).toEqual(['active', 'revoked']);
    expect(enumOf(member(schemaAt(doc, '/v1/grants/{id}/revoke', 'post', '200'), 'reason_code'))).toEqual([
      'admin_revoked_authority',
      'principal_revoked_authority',
    ]);

    const approvalStates = ['approved', 'consumed', 'expired', 'pending', 'rejected'];
    expect(enumOf(member(schemaAt(doc, '/v1/approvals/{id}', 'get', '200'), 'status'))).toEqual(approvalStates);
    expect(enumOf(queryParam(doc, '/v1/approvals', 'state'))).toEqual(approvalStates);

    expect(enumOf(member(schemaAt(doc, '/v1/card-tokens/{id}', 'get', '200'), 'state'))).toEqual([
      'active',
      'suspended',
    ]);
    expect(enumOf(member(schemaAt(doc, '/v1/merchants/{id}', 'get', '200'), 'state'))).toEqual(['active', 'suspended']);
    const riskStates = ['blocked', 'elevated', 'normal'];
    expect(enumOf(member(schemaAt(doc, '/v1/risk-signals', 'post', 'body'), 'risk_state'))).toEqual(riskStates);
    expect(enumOf(member(schemaAt(doc, '/v1/risk-signals', 'post', '200'), 'risk_state'))).toEqual(riskStates);

    expect(enumOf(member(schemaAt(doc, '/v1/runtime/outcomes', 'post', 'body'), 'outcome'))).toEqual([
      'executed',
      'failed',
      'refunded',
    ]);
    expect(enumOf(member(schemaAt(doc, '/v1/runtime/outcomes', 'post', '200'), 'outcome'))).toEqual([
      'executed',
      'failed',
      'none',
      'refunded',
      'reserved',
    ]);

    const endpoint = schemaAt(doc, '/v1/webhook-endpoints/{id}', 'get', '200');
    expect(enumOf(member(endpoint, 'profile'))).toEqual(['asymmetric', 'cose', 'shared_secret']);
    expect(enumOf(member(endpoint, 'state'))).toEqual(['disabled', 'enabled']);
    expect(enumOf(member(schemaAt(doc, '/v1/webhook-endpoints', 'post', 'body'), 'profile'))).toEqual([
      'asymmetric',
      'cose',
      'shared_secret',
    ]);
    const deliveries = schemaAt(doc, '/v1/webhook-endpoints/{id}/deliveries', 'get', '200');
    expect(enumOf(member(deliveries, 'items.*.status'))).toEqual(['exhausted', 'failed', 'pending', 'succeeded']);
  });

  it('writes every closed set as a typed enum, never as a union of constants', () => {
    const untyped: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${where}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      if (Array.isArray(record.enum) && record.type === undefined) untyped.push(`${where}: enum without a type`);
      // @fastify/swagger writes a `const` as a one-value `enum`: two of them side by side are an unmerged union
      const singles = Array.isArray(record.anyOf)
        ? record.anyOf.filter((m) => (m as Schema).enum?.length === 1 || (m as { const?: unknown }).const !== undefined)
        : [];
      if (singles.length > 1) untyped.push(`${where}: union of constants`);
      for (const [key, value] of Object.entries(record)) visit(value, `${where}/${key}`);
    };
    visit(doc.paths, '#/paths');
    expect(untyped).toEqual([]);
  });
});
