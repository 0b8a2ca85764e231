/**
 * Certification (preview, CONTRACT section 14): a self-attestation over a real conformance report (the service ran
 * the kit against itself) is a JWS that jose's own verifiers (compactVerify, flattenedVerify: an implementation we
 * did not write) accept against the published JWKS, in both serialisations; any tampering, `alg: none`, an HMAC
 * forged with the public key and an unknown key are refused, by jose and by POST /v1/certification/verify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactVerify, createLocalJWKSet, flattenedVerify, type JSONWebKeySet } from 'jose';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { sql } from 'kysely';
import { canonicalBytes, encodeBase64Url, signDocument } from '@aar/core';
import { sha256 } from '@noble/hashes/sha2.js';
import { storeConformanceReport } from '../../src/services/conformance/conformance-runs.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { createApiCall, type ApiCall } from '../support/api-call.ts';

let rt: TestRuntime;
let call: ApiCall;
let jwks: JSONWebKeySet;
let auditor: string;
let report: { report_id: string; passed: boolean };
let attestation: {
  attestation_id: string;
  claims: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  jws: { compact: string; json: { protected: string; payload: string; signature: string } };
};

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const verifyOnServer = async (jws: unknown) => (await call('POST', '/v1/certification/verify', { jws }, auditor)).body;

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  call = createApiCall(base, ADMIN_TOKEN);
  jwks = (await call('GET', '/.well-known/jwks.json')).body;
  auditor = (await call('POST', '/v1/tokens', { role: 'auditor' })).body.token;
  const run = await call('POST', '/v1/conformance/runs', { profiles: ['ns.core.v1'] });
  expect(run.status).toBe(201);
  report = run.body;
  expect(report.passed).toBe(true);
  const created = await call('POST', '/v1/certification/attestations', { conformance_report_id: report.report_id });
  expect(created.status).toBe(201);
  attestation = created.body;
});
afterAll(async () => rt?.close());

describe('POST /v1/certification/attestations', () => {
  it('answers an EdDSA JWS that jose verifies against the JWKS, compact and flattened JSON alike', async () => {
    const keys = createLocalJWKSet(jwks);
    const compact = await compactVerify(attestation.jws.compact, keys, { algorithms: ['EdDSA'] });
    expect(compact.protectedHeader).toMatchObject({
      alg: 'EdDSA',
      kid: jwks.keys[0]!.kid,
      cty: 'ns.certification_attestation.v1+json',
    });
    const flattened = await flattenedVerify(attestation.jws.json, keys, { algorithms: ['EdDSA'] });
    expect(Buffer.from(flattened.payload).equals(Buffer.from(compact.payload))).toBe(true);
    expect(attestation.jws.compact).toBe(
      `${attestation.jws.json.protected}.${attestation.jws.json.payload}.${attestation.jws.json.signature}`,
    );

    const claims = JSON.parse(Buffer.from(compact.payload).toString('utf8'));
    expect(claims).toEqual(attestation.claims);
    expectSchemaValid(claims);
    const stored = (await call('GET', `/v1/conformance/runs/${report.report_id}`, undefined, auditor)).body;
    expect(claims).toMatchObject({
      kind: 'self_attestation',
      preview: true,
      issuer: 'http://127.0.0.1:8080',
      conformance_report: {
        report_id: report.report_id,
        passed: true,
        // bound to the exact report: SHA-256 of its RFC 8785 bytes
        digest: `sha-256:${encodeBase64Url(sha256(canonicalBytes(stored)))}`,
        conformant_profiles: ['ns.core.v1'],
      },
    });
    expect(claims.statement).toMatch(/Self-attestation \(preview\)/);
  });

  it('is stored and served as signed; POST /verify accepts it in both serialisations', async () => {
    const got = await call('GET', `/v1/certification/attestations/${attestation.attestation_id}`, undefined, auditor);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(attestation);
    for (const jws of [attestation.jws.compact, attestation.jws.json]) {
      const v = await verifyOnServer(jws);
      expect(v).toMatchObject({ valid: true, attestation_id: attestation.attestation_id });
      expect(v.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
        ['signature', true],
        ['key_valid_at_issue', true],
        ['claims', true],
        ['conformance_report', true],
        ['recorded', true],
      ]);
    }
    await expect(
      sql`update certification_attestations set compact = 'x' where attestation_id = ${attestation.attestation_id}`.execute(
        rt.ctx.store.db,
      ),
    ).rejects.toThrow(/write-once/);
  });

  it('refuses a tampered payload or signature, alg none, an HMAC keyed with the public key and an unknown key', async () => {
    const keys = createLocalJWKSet(jwks);
    const [protectedPart, payload, signature] = attestation.jws.compact.split('.') as [string, string, string];
    const forgedClaims = { ...attestation.claims, statement: 'certified by a third party' };
    const header = JSON.parse(Buffer.from(protectedPart, 'base64url').toString('utf8'));
    const publicX = Buffer.from(jwks.keys[0]!.x as string, 'base64url');
    const hmacHeader = b64({ ...header, alg: 'HS256' });
    const hmac = createHmac('sha256', publicX).update(`${hmacHeader}.${payload}`).digest('base64url');
    const other = generateKeyPairSync('ed25519').privateKey;
    const strangerHeader = b64({ ...header, kid: 'ns:key:stranger' });
    const stranger = sign(null, Buffer.from(`${strangerHeader}.${payload}`), other).toString('base64url');
    const flipped = Buffer.from(signature, 'base64url');
    flipped[0]! ^= 1;
    const bad: Array<[string, string]> = [
      ['edited payload', `${protectedPart}.${b64(forgedClaims)}.${signature}`],
      ['flipped signature bit', `${protectedPart}.${payload}.${flipped.toString('base64url')}`],
      ['alg none', `${b64({ ...header, alg: 'none' })}.${payload}.`],
      ['HS256 keyed with the public key', `${hmacHeader}.${payload}.${hmac}`],
      ['a key not in the JWKS', `${strangerHeader}.${payload}.${stranger}`],
      ['truncated', `${protectedPart}.${payload}`],
    ];
    for (const [desc, jws] of bad) {
      await expect(compactVerify(jws, keys, { algorithms: ['EdDSA'] }), desc).rejects.toThrow();
      const v = await verifyOnServer(jws);
      expect(v.valid, desc).toBe(false);
      expect(v.checks[0], desc).toMatchObject({ name: 'signature', ok: false });
      expect(v.checks).toHaveLength(5);
    }
    const flat = { ...attestation.jws.json, payload: b64(forgedClaims) };
    await expect(flattenedVerify(flat, keys, { algorithms: ['EdDSA'] })).rejects.toThrow();
    expect((await verifyOnServer(flat)).valid).toBe(false);
  });

  it('a genuine signature over another payload still fails the checks the signature cannot make', async () => {
    // signed by the service key itself (as a leaked signing path would), but never issued as an attestation
    const { signJws } = await import('../../src/services/certification/sign-jws.ts');
    const forged = await signJws(
      { ...attestation.claims, attestation_id: 'ns:attestation:00000000-0000-7000-8000-000000000000' },
      { cty: 'ns.certification_attestation.v1+json' },
      rt.ctx.keys.current(),
    );
    const v = await verifyOnServer(forged.compact);
    expect(v.valid).toBe(false);
    expect(v.checks.find((c: { name: string }) => c.name === 'signature').ok).toBe(true);
    expect(v.checks.find((c: { name: string }) => c.name === 'recorded')).toMatchObject({ ok: false });
    const otherReport = await signJws(
      {
        ...attestation.claims,
        conformance_report: { ...attestation.claims.conformance_report, digest: `sha-256:${'A'.repeat(43)}` },
      },
      {},
      rt.ctx.keys.current(),
    );
    expect(
      (await verifyOnServer(otherReport.compact)).checks.find((c: { name: string }) => c.name === 'conformance_report')
        .ok,
    ).toBe(false);
  });

  it('refuses bad input naming the field; reports that did not pass cannot be attested; preview in OpenAPI', async () => {
    const unknown = await call('POST', '/v1/certification/attestations', {
      conformance_report_id: 'ns:conformance_report:00000000-0000-7000-8000-000000000000',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: 'reference_not_found', errors: [{ path: '/conformance_report_id' }] });
    const malformed = await call('POST', '/v1/certification/attestations', { conformance_report_id: 'x' });
    expect(malformed.body).toMatchObject({ code: 'invalid_id', errors: [{ path: '/conformance_report_id' }] });
    expect(
      (await call('POST', '/v1/certification/attestations', { conformance_report_id: report.report_id }, auditor))
        .status,
    ).toBe(403);
    expect(
      (
        await call(
          'GET',
          '/v1/certification/attestations/ns:attestation:00000000-0000-7000-8000-000000000000',
          undefined,
          auditor,
        )
      ).status,
    ).toBe(404);
    expect((await call('POST', '/v1/certification/verify', { jws: { protected: 'a' } }, auditor)).status).toBe(400);

    // a failed run, stored as the conformance service stores one: attesting it would state something false
    const real = (await call('GET', `/v1/conformance/runs/${report.report_id}`, undefined, auditor)).body;
    const failedRun = await signDocument(
      {
        ...real,
        report_id: 'ns:conformance_report:00000000-0000-4000-8000-0000000000f1',
        passed: false,
        summary: { ...real.summary, passed: real.summary.passed - 1, failed: 1 },
      },
      rt.ctx.keys.current(),
    );
    await storeConformanceReport(rt.ctx, failedRun, null);
    const refused = await call('POST', '/v1/certification/attestations', {
      conformance_report_id: failedRun.report_id,
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/conformance_report_id' }] });

    const doc = (await call('GET', '/v1/openapi.json')).body;
    for (const [path, method] of [
      ['/v1/certification/attestations', 'post'],
      ['/v1/certification/attestations/{id}', 'get'],
      ['/v1/certification/verify', 'post'],
    ] as const) {
      expect(doc.paths[path][method]['x-preview'], path).toBe(true);
      expect(doc.paths[path][method].description).toMatch(/^PREVIEW/);
    }
  });
});
