/**
 * Every backtest (migration 0017, services/backtests) against its `ns.backtest.completed` event, whose envelope
 * check-events.ts checks against its audit entry. A backtest is written `running` (no event: its progress moves with
 * every page of its job) and ends once, `done` or `failed`, in the same unit as its event (run-backtest.ts), which
 * restates the row as it ends:
 * - a `done` or `failed` row is what its event says: `pack_name` (as `pack_id`), `version`, `state`, `done_count`
 *   (`decisions`), `total_count` (`total`), and by SHA-256 of the stored bytes its `params` (`params_digest`), its
 *   report (`result_digest`, done) or its error (`error_digest`, failed); the other of `result` / `error` is null;
 * - a row that claims to have ended without its event is `record_unanchored`; a row still `running` whose event
 *   exists (an ended backtest set back, which would run it again) is `record_mismatch` on `state`;
 * - every completed event has its row (`record_missing`: a deleted report).
 * Attacker assumption: someone with SQL access edits a report (what a pack would have changed) to make a pack look
 * harmless before it is activated. A `running` row is checked only for having no event: until it ends its cursor,
 * counts and partial report are the job's working state, in no record (outside-the-chain.ts says so).
 * `seq`, `created_at` and `updated_at` are outside the chain. Every run checks every row (small table, no `seq`
 * mark), a page at a time: O(page) memory.
 */
import type { Kysely } from 'kysely';
import { policyId } from '../../services/policy/policy-ids.ts';
import type { Database } from '../../store/index.ts';
import { digestOfCanonical } from '../audit-entry.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';
import { subjectEvents } from './subject-events.ts';

export const BACKTEST_COMPLETED = 'ns.backtest.completed';

interface BacktestRow {
  seq: number;
  backtest_id: string;
  pack_name: string;
  version: string;
  params: string;
  state: 'running' | 'done' | 'failed';
  done_count: number;
  total_count: number;
  result: string | null;
  error: string | null;
}

type Problem = { reason: RecordFailureReason; detail: string };

export async function checkBacktests(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  await checkRows(db, findings, pageSize);
  await checkEventsHaveRows(db, findings, pageSize);
}

async function checkRows(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: BacktestRow[] = await db
      .selectFrom('backtests')
      .select([
        'seq',
        'backtest_id',
        'pack_name',
        'version',
        'params',
        'state',
        'done_count',
        'total_count',
        'result',
        'error',
      ])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const histories = await subjectEvents(
      db,
      rows.map((r) => r.backtest_id),
      BACKTEST_COMPLETED,
      'running',
      {},
    );
    const entries = await entriesById(
      db,
      [...histories.values()].flatMap((h) => (h.created ? [h.created.audit_ref] : [])),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'backtests', id: row.backtest_id };
      // an unreadable envelope leaves `created` unset: check-events.ts names that event
      const completed = histories.get(row.backtest_id)?.created;
      const entry = completed && entries.get(completed.audit_ref);
      if (!completed || !entry) {
        // ended after this run read the tip (its entry is beyond it): the next run's
        if (completed && (await existsBeyond(db, completed.audit_ref, findings.size))) continue;
        if (row.state !== 'running') findings.fail({ reason: 'record_unanchored', record, detail: 'state' });
        continue;
      }
      const problem = backtestProblem(row, completed.data);
      if (problem) findings.fail({ ...problem, index: entry.index, record });
    }
  }
}

/** What differs between an ended backtest's row and the data of its completed event. */
function backtestProblem(row: BacktestRow, data: Record<string, unknown>): Problem | undefined {
  const mismatch = (detail: string): Problem => ({ reason: 'record_mismatch', detail });
  const digestMismatch = (detail: string): Problem => ({ reason: 'record_digest_mismatch', detail });
  if (row.state !== data.state) return mismatch('state');
  if (policyId('rule_pack', row.pack_name) !== data.pack_id) return mismatch('pack_name');
  if (row.version !== data.version) return mismatch('version');
  if (digestOfCanonical(row.params) !== data.params_digest) return digestMismatch('params');
  if (Number(row.done_count) !== data.decisions) return mismatch('done_count');
  if (Number(row.total_count) !== data.total) return mismatch('total_count');
  if (row.state === 'done') {
    if (row.result === null || digestOfCanonical(row.result) !== data.result_digest) return digestMismatch('result');
    if (row.error !== null) return mismatch('error');
  } else {
    if (row.error === null || digestOfCanonical(row.error) !== data.error_digest) return digestMismatch('error');
    if (row.result !== null) return mismatch('result');
  }
  return undefined;
}

/** Every completed event has its row: a deleted backtest is named by its event's entry. */
async function checkEventsHaveRows(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = 0;
  for (;;) {
    const events = await db
      .selectFrom('events')
      .select(['seq', 'subject_ref', 'envelope'])
      .where('event_type', '=', BACKTEST_COMPLETED)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (events.length === 0) return;
    after = Number(events[events.length - 1]!.seq);
    const present = new Set(
      (
        await db
          .selectFrom('backtests')
          .select('backtest_id')
          .where(
            'backtest_id',
            'in',
            events.map((e) => e.subject_ref),
          )
          .execute()
      ).map((r) => r.backtest_id),
    );
    const missing = events.filter((e) => !present.has(e.subject_ref));
    if (missing.length === 0) continue;
    const refs = new Map(missing.map((e) => [e.subject_ref, auditRefOf(e.envelope)]));
    const entries = await entriesById(
      db,
      [...refs.values()].flatMap((r) => (r === undefined ? [] : [r])),
      findings.size,
    );
    for (const e of missing) {
      const ref = refs.get(e.subject_ref);
      const entry = ref === undefined ? undefined : entries.get(ref);
      // an event written after this run read the tip is the next run's
      if (!entry && ref !== undefined && (await existsBeyond(db, ref, findings.size))) continue;
      findings.fail({
        reason: 'record_missing',
        ...(entry ? { index: entry.index } : {}),
        record: { table: 'backtests', id: e.subject_ref },
        detail: 'backtest_id',
      });
    }
  }
}

function auditRefOf(envelope: string): string | undefined {
  try {
    const parsed = JSON.parse(envelope) as { audit_ref?: unknown };
    return typeof parsed.audit_ref === 'string' ? parsed.audit_ref : undefined;
  } catch {
    return undefined; // check-events.ts names an unreadable envelope
  }
}
