/**
 * Shared by the hostile-input suites (test/security/): one request as raw bytes through the app, and the assertion
 * every refusal must meet (CONTRACT section 7): RFC 9457 problem+json with the stable `code`, and, for a bad field,
 * `errors[].path` naming it. A refusal is judged on what a client sees, never on message text.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Sent {
  status: number;
  contentType: string;
  text: string;
  body: Json;
}

export interface RawRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** an object is sent as JSON.stringify; a string or Buffer as those exact bytes */
  payload?: unknown;
  headers?: Record<string, string>;
  token?: string | null;
}

export async function send(app: FastifyInstance, token: string, req: RawRequest): Promise<Sent> {
  const bearer = req.token === undefined ? token : req.token;
  const payload =
    req.payload === undefined || typeof req.payload === 'string' || Buffer.isBuffer(req.payload)
      ? (req.payload as string | Buffer | undefined)
      : JSON.stringify(req.payload);
  const res: LightMyRequestResponse = await app.inject({
    method: req.method,
    url: req.url,
    headers: {
      ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...req.headers,
    },
    ...(payload === undefined ? {} : { payload }),
  });
  let body: Json;
  try {
    body = JSON.parse(res.body) as Json;
  } catch {
    body = { unparsed: res.body };
  }
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text: res.body, body };
}

/** A refusal as CONTRACT section 7 fixes it; `path`, when given, must be among `errors[].path` (or a prefix of one). */
export function expectProblem(res: Sent, status: number, code: string, path?: string): void {
  const where = `${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, where).toBe(status);
  expect(res.contentType, where).toMatch(/^application\/problem\+json/);
  expect(res.body, where).toMatchObject({ status, code, type: `urn:aar:problem:${code}` });
  expect(typeof res.body.title, where).toBe('string');
  expect(typeof res.body.detail, where).toBe('string');
  if (path !== undefined) {
    const paths = ((res.body.errors ?? []) as Json[]).map((e) => String(e.path));
    expect(
      paths.some((p) => p === path || p.startsWith(`${path}/`)),
      `${where}: errors[].path should name ${path}`,
    ).toBe(true);
  }
}

/** `depth` nested arrays around `inner`, as JSON text (never built as a value: no recursion anywhere). */
export function nestedJson(depth: number, inner = '1'): string {
  return '['.repeat(depth) + inner + ']'.repeat(depth);
}

/** A Luhn-valid 16-digit test card number. */
export const TEST_PAN = '4111111111111111';
