/**
 * POST /v1/certification/attestations and GET /v1/certification/attestations/{id} (PREVIEW, CONTRACT section 14):
 * a self-attestation over one stored conformance report, signed as a JWS by the service key and stored write-once.
 * Only a report that passed can be attested: attesting a failed run would state something false.
 * A PREVIEW report (a run of a preview profile, `preview: true`) is never attested (SPEC "Rules" 6: a preview profile
 * carries no badge): refused 422 `reference_invalid`, nothing written. The attested `conformant_profiles` never name a
 * preview profile either, whatever the report says (a defence should a mixed report ever be stored).
 * The report is read through the conformance service (getConformanceRun) and bound by the digest of its RFC 8785
 * bytes, so the attestation can never be moved onto another report, or onto an edited one.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import {
  AarError,
  canonicalBytes,
  encodeBase64Url,
  fieldError,
  isPreviewConformanceProfile,
  UUID_PATTERN,
  type ConformanceReport,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { SERVER_VERSION } from '../../http/server-version.ts';
import { getConformanceRun } from '../conformance/conformance-runs.ts';
import {
  ATTESTATION_CONTENT_TYPE,
  ATTESTATION_PREFIX,
  ATTESTATION_SCHEMA,
  type AttestationClaims,
} from './attestation-claims.ts';
import { jwsFromCompact, signJws, type JwsSerialisations } from './sign-jws.ts';

export interface AttestationView {
  attestation_id: string;
  preview: true;
  conformance_report_id: string;
  created_at: string;
  /** the decoded payload, for reading; the JWS is what verifies */
  claims: AttestationClaims;
  jws: JwsSerialisations;
}

export function reportDigest(report: ConformanceReport): string {
  return `sha-256:${encodeBase64Url(sha256(canonicalBytes(report)))}`;
}

function defaultStatement(issuer: string, reportId: string): string {
  return (
    `The operator of ${issuer} attests that this deployment passed conformance report ${reportId}. ` +
    'Self-attestation (preview): no third party has certified it.'
  );
}

async function readReport(ctx: AppContext, id: string): Promise<ConformanceReport> {
  try {
    return await getConformanceRun(ctx, id);
  } catch (error) {
    if (error instanceof AarError && error.code === 'invalid_id') {
      throw fieldError('invalid_id', '/conformance_report_id', 'must be `ns:conformance_report:<uuid>`');
    }
    if (error instanceof AarError && error.code === 'not_found') {
      throw fieldError('reference_not_found', '/conformance_report_id', `conformance report \`${id}\` does not exist`);
    }
    throw error;
  }
}

export async function createAttestation(
  ctx: AppContext,
  credential: Credential | null,
  body: { conformance_report_id: string; statement?: string },
): Promise<AttestationView> {
  const report = await readReport(ctx, body.conformance_report_id);
  if (!report.passed) {
    throw fieldError(
      'reference_invalid',
      '/conformance_report_id',
      `conformance report \`${report.report_id}\` did not pass (${report.summary.failed} fixtures failed): it cannot be attested`,
    );
  }
  const stable = report.profiles.filter((p) => p.conformant && !isPreviewConformanceProfile(p.profile));
  if (report.preview === true || report.profiles.some((p) => isPreviewConformanceProfile(p.profile))) {
    throw fieldError(
      'reference_invalid',
      '/conformance_report_id',
      `conformance report \`${report.report_id}\` is a preview run (profiles ${report.profiles_requested.join(', ')}): ` +
        'a preview profile earns no attestation',
    );
  }
  if (stable.length === 0) {
    throw fieldError(
      'reference_invalid',
      '/conformance_report_id',
      `conformance report \`${report.report_id}\` shows no conformant profile: it cannot be attested`,
    );
  }
  const now = ctx.clock.now();
  const claims: AttestationClaims = {
    schema_version: ATTESTATION_SCHEMA,
    attestation_id: `${ATTESTATION_PREFIX}${ctx.newUuid()}`,
    kind: 'self_attestation',
    preview: true,
    issuer: ctx.config.issuerUrl,
    issued_at: now.toISOString(),
    iat: Math.floor(now.getTime() / 1000),
    server_version: SERVER_VERSION,
    conformance_report: {
      report_id: report.report_id,
      digest: reportDigest(report),
      passed: report.passed,
      finished_at: report.finished_at,
      kit: { version: report.kit.version, digest: report.kit.digest },
      conformant_profiles: stable.map((p) => p.profile),
    },
    statement: body.statement ?? defaultStatement(ctx.config.issuerUrl, report.report_id),
  };
  const jws = await signJws(claims, { typ: 'JOSE', cty: ATTESTATION_CONTENT_TYPE }, ctx.keys.current());
  await ctx.writer.run(async (trx) => {
    await trx
      .insertInto('certification_attestations')
      .values({
        attestation_id: claims.attestation_id,
        conformance_report_id: report.report_id,
        compact: jws.compact,
        created_by: credential?.token_id ?? null,
        created_at: claims.issued_at,
      })
      .execute();
  });
  return viewOf(claims.attestation_id, report.report_id, claims.issued_at, jws.compact);
}

function viewOf(id: string, reportId: string, createdAt: string, compact: string): AttestationView {
  const jws = jwsFromCompact(compact);
  const claims = JSON.parse(Buffer.from(jws.json.payload, 'base64url').toString('utf8')) as AttestationClaims;
  return { attestation_id: id, preview: true, conformance_report_id: reportId, created_at: createdAt, claims, jws };
}

export async function getAttestation(ctx: AppContext, rawId: string): Promise<AttestationView> {
  if (!rawId.startsWith(ATTESTATION_PREFIX) || !UUID_PATTERN.test(rawId.slice(ATTESTATION_PREFIX.length))) {
    throw fieldError('invalid_id', '/params/id', `must be an id of the form \`${ATTESTATION_PREFIX}<uuid>\``);
  }
  const row = await ctx.store.db
    .selectFrom('certification_attestations')
    .selectAll()
    .where('attestation_id', '=', rawId)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `attestation \`${rawId}\` does not exist`);
  return viewOf(row.attestation_id, row.conformance_report_id, row.created_at, row.compact);
}
