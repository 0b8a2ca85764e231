/**
 * Every stored evidence pack against its decision's audit entry: the pack names its row's ids, carries that entry's
 * exact bytes, its members rebuild a decision record with the entry's digest, its checkpoint is the stored one of
 * its size, and its signature verifies with the service's keys. Pages by id: O(page) memory; the packs of a page are
 * checked concurrently (their signatures on the thread pool), and the first failure by index wins as always.
 */
import { canonicalDecisionRecord, verifyDocument, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { digestOfCanonical } from '../audit-entry.ts';
import { entriesById } from './entries-by-id.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

export async function checkEvidencePacks(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('evidence_packs as p')
      .leftJoin('decisions as d', 'd.policy_decision_id', 'p.policy_decision_id')
      .select(['p.evidence_pack_id', 'p.policy_decision_id', 'p.document', 'd.audit_ref'])
      .where('p.evidence_pack_id', '>', after)
      .orderBy('p.evidence_pack_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.evidence_pack_id;
    const entries = await entriesById(
      db,
      rows.flatMap((r) => (r.audit_ref === null ? [] : [r.audit_ref])),
      findings.size,
    );
    const packs = rows.map((r) => parsePack(r.document));
    const checkpoints = await checkpointRoots(db, packs);
    // a page's packs at once: each signature is verified by WebCrypto on libuv's thread pool, so they run in parallel
    await Promise.all(
      rows.map(async (row, i) => {
        const record = { table: 'evidence_packs', id: row.evidence_pack_id };
        const entry = row.audit_ref === null ? undefined : entries.get(row.audit_ref);
        if (!entry) {
          if (row.audit_ref === null) {
            findings.fail({ reason: 'record_unanchored', record, detail: 'policy_decision_id' });
          }
          return;
        }
        const problem = await packProblem(checkpoints, row, packs[i], entry.text, entry.parsed?.record_digest, jwks);
        if (problem) findings.fail({ ...problem, index: entry.index, record });
      }),
    );
  }
}

/** The stored roots of the checkpoints a page of packs names, in one SELECT. */
async function checkpointRoots(
  db: Kysely<Database>,
  packs: ReadonlyArray<Record<string, unknown> | undefined>,
): Promise<Map<number, string>> {
  const sizes = new Set<number>();
  for (const pack of packs) {
    const size = (pack?.checkpoint as { size?: unknown } | undefined)?.size;
    if (typeof size === 'number' && Number.isSafeInteger(size)) sizes.add(size);
  }
  if (sizes.size === 0) return new Map();
  const rows = await db
    .selectFrom('audit_checkpoints')
    .select(['size', 'root_hash'])
    .where('size', 'in', [...sizes])
    .execute();
  return new Map(rows.map((r) => [Number(r.size), r.root_hash]));
}

async function packProblem(
  checkpoints: Map<number, string>,
  row: { evidence_pack_id: string; policy_decision_id: string },
  pack: Record<string, unknown> | undefined,
  entryText: string,
  committed: string | undefined,
  jwks: Jwks,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  if (!pack) return { reason: 'record_digest_mismatch', detail: 'document' };
  if (pack.evidence_pack_id !== row.evidence_pack_id) return { reason: 'record_mismatch', detail: 'evidence_pack_id' };
  if (pack.policy_decision_id !== row.policy_decision_id) {
    return { reason: 'record_mismatch', detail: 'policy_decision_id' };
  }
  if (pack.audit_entry !== entryText) return { reason: 'record_mismatch', detail: 'audit_entry' };
  let digest: string | undefined;
  try {
    // the members of a parsed pack are plain JSON: canonicalDecisionRecord gives the text buildDecisionRecord would
    digest = digestOfCanonical(
      canonicalDecisionRecord({
        policy_decision_id: row.policy_decision_id,
        request: pack.request as never,
        snapshot: pack.snapshot as never,
        now: pack.now as string,
        result: pack.decision as never,
        engine_version: pack.engine_version as string,
        decision_map: pack.decision_map as object,
      }),
    );
  } catch {
    digest = undefined;
  }
  if (digest !== committed) return { reason: 'record_digest_mismatch', detail: 'decision record' };
  const checkpoint = pack.checkpoint as { size?: unknown; root_hash?: unknown } | undefined;
  const stored = typeof checkpoint?.size === 'number' ? checkpoints.get(checkpoint.size) : undefined;
  if (stored === undefined || stored !== checkpoint?.root_hash)
    return { reason: 'record_mismatch', detail: 'checkpoint' };
  if (!(await verifyDocument(pack, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'signature' };
  return undefined;
}

function parsePack(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
