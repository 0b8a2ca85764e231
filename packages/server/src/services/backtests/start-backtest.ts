/**
 * `POST /v1/rule-packs/{name}/versions/{version}/backtests`: checks the pack version can be backtested (it exists,
 * is of the `purchase` domain, is not retired, its dictionaries are there), counts the decisions of the range up to
 * the last one stored now, writes the backtest `running` with its cursor, and queues its job (backtest-runner.ts).
 * Nothing is written when a check fails. Answers at once (202); progress is read with `GET /v1/backtests/{id}`.
 */
import { AarError, canonicalJson, type RulePackDocument } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { trustedDocument } from '../policy/document-integrity.ts';
import { packDictionaries } from '../policy/pack-dictionaries.ts';
import { refOf } from '../policy/policy-ids.ts';
import { readVersion } from '../policy/stored-documents.ts';
import { emptyReport } from './backtest-report.ts';
import { readBacktestParams, type BacktestBody } from './backtest-params.ts';
import { scheduleBacktest } from './backtest-runner.ts';
import type { RunningState, StoredParams } from './run-backtest.ts';

export async function startBacktest(
  ctx: AppContext,
  credential: Credential | null,
  name: string,
  version: string,
  body: BacktestBody,
): Promise<{ backtest_id: string }> {
  const params = readBacktestParams(body);
  const db = ctx.store.db;
  const stored = await readVersion(db, 'rule_pack', name, version);
  const ref = refOf('rule_pack', name, version);
  if (!stored) throw new AarError('not_found', `rule pack \`${ref}\` does not exist`);
  if (stored.state === 'retired') {
    throw new AarError('conflict', `rule pack \`${ref}\` is retired`, {
      errors: [{ path: '/params/version', message: 'retired' }],
    });
  }
  const document = await trustedDocument<RulePackDocument>(ctx, 'rule_pack', stored);
  if (document.domain !== 'purchase') {
    throw new AarError('invalid_request', `rule pack \`${ref}\` is not of the purchase domain`, {
      errors: [{ path: '/params/name', message: 'only purchase packs decide stored decisions' }],
    });
  }
  await packDictionaries(ctx, document.dictionaries ?? [], stored.state !== 'draft');

  let range = db
    .selectFrom('decisions')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.max('seq').as('last')])
    .where('now', '>=', params.from)
    .where('now', '<', params.until);
  if (params.principal_entity_id) range = range.where('principal_entity_id', '=', params.principal_entity_id);
  const counted = await range.executeTakeFirst();
  const total = Number(counted?.n ?? 0);
  const state: RunningState = {
    running: { after_seq: 0, through_seq: Number(counted?.last ?? 0) },
    report: emptyReport(),
  };
  const backtestId = `ns:backtest:${ctx.newUuid()}`;
  const stored_params: StoredParams = { ...params, requested_by: actorOf(credential) };
  const now = ctx.clock.now().toISOString();
  await ctx.writer.run((trx) =>
    trx
      .insertInto('backtests')
      .values({
        backtest_id: backtestId,
        pack_name: name,
        version,
        // RFC 8785 bytes: `ns.backtest.completed` commits to their digest (check-backtests.ts)
        params: canonicalJson(stored_params),
        state: 'running',
        done_count: 0,
        total_count: total,
        result: JSON.stringify(state),
        error: null,
        created_at: now,
        updated_at: now,
      })
      .execute(),
  );
  scheduleBacktest(ctx, backtestId);
  return { backtest_id: backtestId };
}
