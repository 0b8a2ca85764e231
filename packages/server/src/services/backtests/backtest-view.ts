/**
 * `GET /v1/backtests/{id}`: `{ backtest_id, pack_id, version, params, state, progress: { done, total }, result?,
 * error? }`. The report only once `done` (while running the row holds the job's cursor, which is no answer). A
 * running backtest no instance is moving is resumed here (backtest-runner.ts).
 */
import { AarError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { policyId } from '../policy/policy-ids.ts';
import type { BacktestReport } from './backtest-report.ts';
import { isScheduled, scheduleBacktest, STALE_MS } from './backtest-runner.ts';
import type { StoredParams } from './run-backtest.ts';

export interface BacktestView {
  backtest_id: string;
  pack_id: string;
  version: string;
  params: { from: string; until: string; principal_entity_id?: string };
  state: 'running' | 'done' | 'failed';
  progress: { done: number; total: number };
  result?: BacktestReport;
  error?: string;
  created_at: string;
  updated_at: string;
}

const BACKTEST_ID = /^ns:backtest:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function getBacktest(ctx: AppContext, id: string): Promise<BacktestView> {
  if (!BACKTEST_ID.test(id)) throw new AarError('not_found', `backtest \`${id}\` does not exist`);
  const row = await ctx.store.db.selectFrom('backtests').selectAll().where('backtest_id', '=', id).executeTakeFirst();
  if (!row) throw new AarError('not_found', `backtest \`${id}\` does not exist`);
  const stale = Date.parse(row.updated_at) < ctx.clock.now().getTime() - STALE_MS;
  if (row.state === 'running' && stale && !isScheduled(ctx, id)) scheduleBacktest(ctx, id);
  const params = JSON.parse(row.params) as StoredParams;
  return {
    backtest_id: row.backtest_id,
    pack_id: policyId('rule_pack', row.pack_name),
    version: row.version,
    params: {
      from: params.from,
      until: params.until,
      ...(params.principal_entity_id ? { principal_entity_id: params.principal_entity_id } : {}),
    },
    state: row.state,
    progress: { done: Number(row.done_count), total: Number(row.total_count) },
    ...(row.state === 'done' && row.result ? { result: JSON.parse(row.result) as BacktestReport } : {}),
    ...(row.error ? { error: row.error } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
