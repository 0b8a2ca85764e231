/**
 * POST /v1/certification/verify (PREVIEW): checks an attestation JWS, compact or flattened JSON, with jose's
 * verifiers against THIS service's JWKS (the keys we chose: a `jwk`, `jku` or `x5u` header is never followed, and
 * only `EdDSA` is accepted, so `none` and HS256-with-a-public-key are refused before any key is looked at), then
 * checks what the signature alone cannot: that the key was valid when the attestation was issued, that the payload
 * is an attestation of this issuer, and that the conformance report it names is stored here with the same digest.
 * Answers 200 with every check, also when invalid; it changes nothing.
 */
import { compactVerify, createLocalJWKSet, flattenedVerify, type JSONWebKeySet } from 'jose';
import type { AppContext } from '../../app-context.ts';
import { getConformanceRun } from '../conformance/conformance-runs.ts';
import { ATTESTATION_SCHEMA, type AttestationClaims } from './attestation-claims.ts';
import { reportDigest } from './attestations.ts';

export const VERIFY_CHECKS = ['signature', 'key_valid_at_issue', 'claims', 'conformance_report', 'recorded'] as const;

export interface AttestationCheck {
  name: (typeof VERIFY_CHECKS)[number];
  ok: boolean;
  detail?: string;
}

export interface AttestationVerification {
  valid: boolean;
  attestation_id: string | null;
  checks: AttestationCheck[];
}

export type AttestationInput = string | { protected: string; payload: string; signature: string };

function joseCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : 'ERR_JWS_INVALID';
}

export async function verifyAttestation(ctx: AppContext, jws: AttestationInput): Promise<AttestationVerification> {
  const published = await ctx.keys.jwks();
  const keySet = createLocalJWKSet(published as unknown as JSONWebKeySet);
  const checks: AttestationCheck[] = [];
  const skip = (from: number, why: string) => {
    for (const name of VERIFY_CHECKS.slice(from)) checks.push({ name, ok: false, detail: why });
  };

  let payload: Uint8Array;
  let kid: string | undefined;
  try {
    const options = { algorithms: ['EdDSA'] };
    const result =
      typeof jws === 'string'
        ? await compactVerify(jws, keySet, options)
        : await flattenedVerify({ ...jws }, keySet, options);
    payload = result.payload;
    kid = result.protectedHeader?.kid;
    checks.push({ name: 'signature', ok: true, detail: `EdDSA by \`${kid ?? ''}\`` });
  } catch (error) {
    checks.push({ name: 'signature', ok: false, detail: joseCode(error) });
    skip(1, 'the signature does not verify');
    return { valid: false, attestation_id: null, checks };
  }

  let claims: AttestationClaims;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload)) as AttestationClaims;
  } catch {
    claims = {} as AttestationClaims;
  }
  const key = published.keys.find((k) => k.kid === kid);
  const issuedAt = typeof claims.issued_at === 'string' ? Date.parse(claims.issued_at) : NaN;
  const keyValid =
    key !== undefined &&
    !Number.isNaN(issuedAt) &&
    Date.parse(key.valid_from) <= issuedAt &&
    (key.valid_until === undefined || issuedAt < Date.parse(key.valid_until));
  checks.push({
    name: 'key_valid_at_issue',
    ok: keyValid,
    ...(keyValid ? {} : { detail: `key \`${kid ?? ''}\` was not valid at \`issued_at\`` }),
  });

  const claimsOk =
    claims.schema_version === ATTESTATION_SCHEMA &&
    claims.kind === 'self_attestation' &&
    claims.preview === true &&
    claims.issuer === ctx.config.issuerUrl &&
    typeof claims.attestation_id === 'string' &&
    typeof claims.conformance_report?.report_id === 'string';
  checks.push({
    name: 'claims',
    ok: claimsOk,
    ...(claimsOk ? {} : { detail: `not an ${ATTESTATION_SCHEMA} of this issuer` }),
  });
  if (!claimsOk) {
    skip(3, 'the payload is not an attestation of this issuer');
    return { valid: false, attestation_id: null, checks };
  }

  let reportOk = false;
  let reportDetail = '';
  try {
    const report = await getConformanceRun(ctx, claims.conformance_report.report_id);
    reportOk = reportDigest(report) === claims.conformance_report.digest && report.passed;
    if (!reportOk) reportDetail = 'the stored report differs from the one attested';
  } catch {
    reportDetail = 'the attested report is not stored here';
  }
  checks.push({ name: 'conformance_report', ok: reportOk, ...(reportOk ? {} : { detail: reportDetail }) });

  const row = await ctx.store.db
    .selectFrom('certification_attestations')
    .select('compact')
    .where('attestation_id', '=', claims.attestation_id)
    .executeTakeFirst();
  const compact = typeof jws === 'string' ? jws : `${jws.protected}.${jws.payload}.${jws.signature}`;
  const recorded = row?.compact === compact;
  checks.push({
    name: 'recorded',
    ok: recorded,
    ...(recorded ? {} : { detail: 'this service has no record of issuing this attestation' }),
  });
  return { valid: checks.every((c) => c.ok), attestation_id: claims.attestation_id, checks };
}
