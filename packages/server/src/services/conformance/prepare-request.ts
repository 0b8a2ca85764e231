/**
 * Turns a resolved step request into bytes and headers: the bearer token, the JSON body, the Idempotency-Key and,
 * when asked, the agent's RFC 9421 signature over `@method`, `@target-uri` and `content-digest`. The signed
 * `@target-uri` is the deployment's PUBLIC origin plus the path (CONTRACT section 7: the service rebuilds it from
 * its configured public URL), while the connection may go elsewhere (a loopback address, a proxy).
 */
import { randomBytes, sign as edSign, type KeyObject } from 'node:crypto';
import { buildDelegationStatement, signDocument, signRequest, type StepRequest } from '@aar/core';
import type { PreparedRequest } from './http-exchange.ts';

export interface SigningKeys {
  get(name: string): KeyObject | undefined;
}

export interface PrepareContext {
  /** where requests are sent */
  baseUrl: string;
  /** the public origin signatures are made for */
  signingOrigin: string;
  /** the runner's token, the default credential */
  token: string;
  /** sent on every request, after the step's own headers (the run marker) */
  runHeaders?: Readonly<Record<string, string>>;
  keys: SigningKeys;
  /** unix milliseconds */
  now: () => number;
}

export async function prepareRequest(request: StepRequest, ctx: PrepareContext): Promise<PreparedRequest> {
  const method = request.method ?? 'GET';
  const pathAndQuery = `${request.path ?? '/'}${queryString(request.query)}`;
  const headers: Record<string, string> = {};
  const auth = request.auth === undefined ? ctx.token : request.auth;
  if (auth !== null) headers.authorization = `Bearer ${auth}`;
  let body: string | undefined;
  if (request.raw_body !== undefined) body = request.raw_body;
  else if (request.body !== undefined) {
    let value = request.delegator_proof ? await withDelegatorProof(request, ctx) : request.body;
    if (request.document_signature) value = await withDocumentSignature(request, value, ctx);
    body = JSON.stringify(value);
    headers['content-type'] = 'application/json';
  }
  if (request.idempotency_key !== undefined) headers['idempotency-key'] = request.idempotency_key;
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(ctx.runHeaders ?? {})) headers[name.toLowerCase()] = value;
  if (request.sign) {
    const key = ctx.keys.get(request.sign.key);
    if (!key) throw new Error(`sign.key \`${request.sign.key}\` is not one of the fixture's keys`);
    const signed = await signRequest(
      { method, url: `${ctx.signingOrigin}${pathAndQuery}`, headers, body: body ?? '' },
      { keyId: request.sign.keyid, sign: async (message) => new Uint8Array(edSign(null, message, key)) },
      {
        created: Math.floor(ctx.now() / 1000) + (request.sign.created_offset ?? 0),
        nonce: request.sign.nonce ?? randomBytes(16).toString('base64url'),
        ...(request.sign.components ? { components: request.sign.components } : {}),
        ...(request.sign.label ? { label: request.sign.label } : {}),
      },
    );
    Object.assign(headers, signed);
  }
  return { method, url: `${ctx.baseUrl}${pathAndQuery}`, headers, ...(body === undefined ? {} : { body }) };
}

/** The body plus `delegator_proof`: the delegator's signed `ns.delegation_statement.v1` over the body as sent. */
async function withDelegatorProof(request: StepRequest, ctx: PrepareContext): Promise<Record<string, unknown>> {
  const { key: name, delegator } = request.delegator_proof!;
  const key = ctx.keys.get(name);
  if (!key) throw new Error(`delegator_proof.key \`${name}\` is not one of the fixture's keys`);
  if (typeof request.body !== 'object' || request.body === null)
    throw new Error('delegator_proof needs an object body');
  const body = request.body as Record<string, unknown>;
  const created = new Date(Math.floor(ctx.now() / 1000) * 1000).toISOString();
  const nonce = randomBytes(18).toString('base64url');
  const signed = await signDocument(
    buildDelegationStatement({ delegator_entity_id: delegator, created, nonce, request: body }),
    {
      keyId: delegator,
      sign: async (message) => new Uint8Array(edSign(null, message, key)),
    },
  );
  return { ...body, delegator_proof: { created, nonce, signature: signed.signature } };
}

/** The body with one member set to a key's CONTRACT section 4 signature over a document (an agent's statement). */
async function withDocumentSignature(
  request: StepRequest,
  value: unknown,
  ctx: PrepareContext,
): Promise<Record<string, unknown>> {
  const { key: name, keyid, member, document } = request.document_signature!;
  const key = ctx.keys.get(name);
  if (!key) throw new Error(`document_signature.key \`${name}\` is not one of the fixture's keys`);
  if (typeof value !== 'object' || value === null) throw new Error('document_signature needs an object body');
  const signed = await signDocument(document as Record<string, unknown>, {
    keyId: keyid,
    sign: async (message) => new Uint8Array(edSign(null, message, key)),
  });
  if (member === undefined) return { ...(value as Record<string, unknown>), ...signed };
  return { ...(value as Record<string, unknown>), [member]: signed.signature };
}

function queryString(query: StepRequest['query']): string {
  if (!query || Object.keys(query).length === 0) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) params.set(k, String(v));
  return `?${params.toString()}`;
}
