/**
 * Every stored signed search result (docs/search.md) against its own signature: signed by the service when the
 * search ran, stored write-once (migration 0027) and served byte for byte by `GET /v1/search/{id}`, so a stored
 * result must be exactly what was signed: `document` is RFC 8785 text whose signature verifies with the service's
 * keys, `digest` is its SHA-256, and the other columns restate it (`searched_by`, `searched_at`). A search changes no
 * authority: no entry commits to it, so findings name no index. Attacker assumption: SQL write access without the
 * service key (an edited document fails its signature; an edited column fails its restatement). Every run checks
 * them all.
 */
import { createHash } from 'node:crypto';
import { verifyDocument, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { canonicalDocument } from './canonical-document.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

interface SearchRow {
  seq: number;
  search_result_id: string;
  token_id: string;
  role: string;
  principal_entity_id: string | null;
  agent_entity_id: string | null;
  digest: string;
  document: string;
  created_at: string;
}

export async function checkSearchResults(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: SearchRow[] = await db
      .selectFrom('search_results')
      .select([
        'seq',
        'search_result_id',
        'token_id',
        'role',
        'principal_entity_id',
        'agent_entity_id',
        'digest',
        'document',
        'created_at',
      ])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    await Promise.all(
      rows.map(async (row) => {
        const problem = await searchProblem(row, jwks);
        if (problem) findings.fail({ ...problem, record: { table: 'search_results', id: row.search_result_id } });
      }),
    );
  }
}

async function searchProblem(
  row: SearchRow,
  jwks: Jwks,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  const digest = `sha-256:${createHash('sha256').update(row.document, 'utf8').digest('base64url')}`;
  if (digest !== row.digest) return { reason: 'record_digest_mismatch', detail: 'digest' };
  const result = canonicalDocument(row.document);
  if (!result) return { reason: 'record_digest_mismatch', detail: 'document' };
  if (!(await verifyDocument(result, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'document' };
  const by = (result.searched_by ?? {}) as Record<string, unknown>;
  const expected: Array<[keyof SearchRow, unknown, unknown]> = [
    ['search_result_id', row.search_result_id, result.search_result_id],
    ['token_id', row.token_id, by.token_id],
    ['role', row.role, by.role],
    ['principal_entity_id', row.principal_entity_id, by.principal_entity_id],
    ['agent_entity_id', row.agent_entity_id, by.agent_entity_id],
    ['created_at', row.created_at, result.searched_at],
  ];
  for (const [column, actual, signed] of expected) {
    if (actual !== signed) return { reason: 'record_mismatch', detail: column };
  }
  return undefined;
}
