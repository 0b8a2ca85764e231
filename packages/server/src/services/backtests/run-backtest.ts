/**
 * The backtest job: the stored decisions of the range, a page at a time in `seq` order up to the last decision
 * stored when the backtest began (so the total never moves), each decided again with the pack (replay-with-pack.ts)
 * and counted (backtest-report.ts). After each page the cursor, the partial report and `done_count` are written to
 * the backtest's row (state `running`): a job stopped (restart, crash) resumes from there (backtest-runner.ts),
 * O(page) memory and never more than one page of work lost. At the end the row is `done` with its report, or
 * `failed` with the error, and `ns.backtest.completed` is appended with its audit entry, in the same unit. The event
 * restates the row as it ends (pack, version, state, counts) and commits to its stored bytes by digest (`params`,
 * `result` when done, `error` when failed): `GET /v1/audit/verify` holds the row to it (check-backtests.ts).
 * INVARIANT: a backtest never writes a decision, an approval, a counter or an event about a decision.
 * The records are read as stored (record-codec.ts): a backtest is advice, not evidence; `GET /v1/audit/verify`
 * is what vouches for them.
 */
import { canonicalJson, rulePaths, type DecisionRequest, type DecisionSnapshot } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { digestOfCanonical } from '../../audit/audit-entry.ts';
import { preloadPolicySetTexts } from '../decisions/policy-set-texts.ts';
import { decisionPartsOf } from '../decisions/stored-decision.ts';
import { appendEvent } from '../events/append-event.ts';
import { packDictionaries } from '../policy/pack-dictionaries.ts';
import { policyId } from '../policy/policy-ids.ts';
import { trustedDocument } from '../policy/document-integrity.ts';
import { readVersion } from '../policy/stored-documents.ts';
import { countDecision, finishReport, type BacktestReport } from './backtest-report.ts';
import type { BacktestParams } from './backtest-params.ts';
import { replayWithPack, type PackUnderTest } from './replay-with-pack.ts';
import type { RulePackDocument } from '@aar/core';

/** decisions per page: one page's records in memory, one progress write per page */
export const BACKTEST_PAGE = 500;

/** what the row's `result` holds while the job runs */
export interface RunningState {
  running: { after_seq: number; through_seq: number };
  report: BacktestReport;
}

export interface StoredParams extends BacktestParams {
  /** who asked (the actor of `ns.backtest.completed`) */
  requested_by: string | null;
}

export interface BacktestRow {
  backtest_id: string;
  pack_name: string;
  version: string;
  params: string;
  result: string | null;
  done_count: number;
  total_count: number;
}

export interface RunControl {
  /** true once the app is closing: the job stops after its current page, its state kept for a resume */
  stopped(): boolean;
}

export async function runBacktest(ctx: AppContext, row: BacktestRow, control: RunControl): Promise<void> {
  const params = JSON.parse(row.params) as StoredParams;
  const state = JSON.parse(row.result ?? 'null') as RunningState | null;
  if (!state) throw new Error(`backtest ${row.backtest_id} has no running state`);
  // the report as last written with `done_count` (a page that fails half-way is not in either)
  let written = structuredClone(state.report);
  let pack: PackUnderTest;
  try {
    pack = await packUnderTest(ctx, row);
  } catch (error) {
    await complete(ctx, row, params, { failed: messageOf(error) }, state.report);
    return;
  }
  const zones = new Map<string, string | null>();
  const timeZoneOf = async (principal: string): Promise<string | null> => {
    if (!zones.has(principal)) {
      const found = await ctx.store.db
        .selectFrom('entities')
        .select('time_zone')
        .where('entity_id', '=', principal)
        .executeTakeFirst();
      if (zones.size > 10_000) zones.clear();
      zones.set(principal, found?.time_zone ?? null);
    }
    return zones.get(principal) ?? null;
  };

  let { after_seq: after } = state.running;
  const { through_seq: through } = state.running;
  const report = state.report;
  let done = row.done_count;
  let writtenDone = done;
  try {
    for (;;) {
      if (control.stopped()) return;
      let query = ctx.store.db
        .selectFrom('decisions')
        .select([
          'seq',
          'policy_decision_id',
          'request',
          'snapshot',
          'result',
          'decision_map',
          'record',
          'now',
          'engine_version',
        ])
        .where('seq', '>', after)
        .where('seq', '<=', through)
        .where('now', '>=', params.from)
        .where('now', '<', params.until);
      if (params.principal_entity_id) query = query.where('principal_entity_id', '=', params.principal_entity_id);
      const rows = await query.orderBy('seq').limit(BACKTEST_PAGE).execute();
      if (rows.length === 0) break;
      await preloadPolicySetTexts(
        ctx.store.db,
        rows.map((r) => r.record),
      );
      for (const decision of rows) {
        const parts = decisionPartsOf(decision);
        const after = await replayWithPack(
          ctx.store.db,
          pack,
          {
            request: parts.request as DecisionRequest,
            snapshot: parts.snapshot as DecisionSnapshot,
            now: parts.now,
          },
          timeZoneOf,
        );
        const before = parts.result as { decision: string; reason: string };
        countDecision(report, parts.policy_decision_id, parts.now, before, after);
      }
      after = Number(rows[rows.length - 1]!.seq);
      done += rows.length;
      const next: RunningState = { running: { after_seq: after, through_seq: through }, report };
      await ctx.writer.run((trx) =>
        trx
          .updateTable('backtests')
          .set({ done_count: done, result: JSON.stringify(next), updated_at: ctx.clock.now().toISOString() })
          .where('backtest_id', '=', row.backtest_id)
          .where('state', '=', 'running')
          .execute(),
      );
      written = structuredClone(report);
      writtenDone = done;
      // let requests in between pages: a long backtest never holds the event loop for more than one page
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (error) {
    if (control.stopped()) return;
    await complete(ctx, row, params, { failed: messageOf(error) }, written, writtenDone);
    return;
  }
  await complete(ctx, row, params, {}, report, done);
}

async function packUnderTest(ctx: AppContext, row: BacktestRow): Promise<PackUnderTest> {
  const stored = await readVersion(ctx.store.db, 'rule_pack', row.pack_name, row.version);
  if (!stored) throw new Error(`rule pack ${policyId('rule_pack', row.pack_name)}@${row.version} is gone`);
  const document = await trustedDocument<RulePackDocument>(ctx, 'rule_pack', stored);
  const dictionaries = await packDictionaries(ctx, document.dictionaries ?? [], stored.state !== 'draft');
  const paths = rulePaths(document);
  return {
    activation_id: `ns:rule_activation:${row.backtest_id.slice('ns:backtest:'.length)}`,
    document,
    dictionaries,
    readsCounters: paths.some((p) => p.startsWith('facts.counters')),
    readsLocalTime: paths.some((p) => p.startsWith('facts.local_time')),
  };
}

async function complete(
  ctx: AppContext,
  row: BacktestRow,
  params: StoredParams,
  outcome: { failed?: string },
  report: BacktestReport,
  done = row.done_count,
): Promise<void> {
  const failed = outcome.failed !== undefined;
  const result = failed ? null : canonicalJson(finishReport(report));
  await ctx.writer.run(async (trx) => {
    const now = ctx.clock.now().toISOString();
    const updated = await trx
      .updateTable('backtests')
      .set({
        state: failed ? 'failed' : 'done',
        done_count: done,
        result,
        error: outcome.failed ?? null,
        updated_at: now,
      })
      .where('backtest_id', '=', row.backtest_id)
      .where('state', '=', 'running')
      .executeTakeFirst();
    // another instance finished it first: its event is the one
    if (Number(updated.numUpdatedRows ?? 0n) !== 1) return;
    await appendEvent(trx, ctx, {
      event_type: 'ns.backtest.completed',
      actor_entity_id: params.requested_by,
      principal_entity_id: null,
      subject_ref: row.backtest_id,
      reason_code: failed ? 'backtest_failed' : 'backtest_done',
      data: {
        pack_id: policyId('rule_pack', row.pack_name),
        version: row.version,
        state: failed ? 'failed' : 'done',
        params_digest: digestOfCanonical(row.params),
        decisions: done,
        total: Number(row.total_count),
        changed: report.changed,
        // exactly one of the two: the report of a done backtest, the error of a failed one
        ...(outcome.failed === undefined
          ? { result_digest: digestOfCanonical(result!) }
          : { error_digest: digestOfCanonical(outcome.failed) }),
      },
    });
  });
}

/** an error's message for the row (never a stack; no secrets reach here: the job reads decisions and packs) */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, 500);
}
