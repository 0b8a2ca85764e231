/**
 * Every stored certification self-attestation (docs/certification.md) against its own signature: a JWS the service
 * signed (EdDSA) when it attested a conformance report, stored write-once (migration 0012) and served as stored, so
 * `compact` must verify with the service's keys and its claims must be the row's (`attestation_id`, the report it
 * names, `created_at` = `issued_at`). An attestation is not an audited state change: no entry commits to it, so
 * findings name no index. `created_by` is in no signed or chained record, never served nor read (docs/audit.md,
 * "Outside the chain"). Every run (incremental too) checks them all, a page at a time.
 */
import type { Jwks } from '@aar/core';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

interface AttestationRow {
  seq: number;
  attestation_id: string;
  conformance_report_id: string;
  compact: string;
  created_at: string;
}

export async function checkAttestations(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  const keySet = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
  let after = 0;
  for (;;) {
    const rows: AttestationRow[] = await db
      .selectFrom('certification_attestations')
      .select(['seq', 'attestation_id', 'conformance_report_id', 'compact', 'created_at'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    await Promise.all(
      rows.map(async (row) => {
        const problem = await attestationProblem(row, keySet);
        if (problem) {
          findings.fail({ ...problem, record: { table: 'certification_attestations', id: row.attestation_id } });
        }
      }),
    );
  }
}

async function attestationProblem(
  row: AttestationRow,
  keySet: ReturnType<typeof createLocalJWKSet>,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  let claims: { attestation_id?: unknown; issued_at?: unknown; conformance_report?: { report_id?: unknown } };
  try {
    const { payload } = await compactVerify(row.compact, keySet, { algorithms: ['EdDSA'] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as typeof claims;
  } catch {
    return { reason: 'record_signature_invalid', detail: 'compact' };
  }
  const expected: Array<[keyof AttestationRow, unknown, unknown]> = [
    ['attestation_id', row.attestation_id, claims.attestation_id],
    ['conformance_report_id', row.conformance_report_id, claims.conformance_report?.report_id],
    ['created_at', row.created_at, claims.issued_at],
  ];
  for (const [column, actual, signed] of expected) {
    if (actual !== signed) return { reason: 'record_mismatch', detail: column };
  }
  return undefined;
}
