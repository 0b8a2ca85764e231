/**
 * `POST /v1/conformance/runs/{id}/retire`: retires what conformance run `id` created (run-artifacts.ts), through the
 * same services an operator would call, so each retirement is its own event and audit entry:
 * - webhook endpoints are deleted (with their attempts: the worker delivers nothing more to them);
 * - credentials are revoked;
 * - grants are revoked (their subtrees with them);
 * - entities are tombstoned (a principal's card tokens erased and its credentials revoked with it);
 * - listings (write-once), merchants and card tokens stay as records, withdrawn: left out of search, scores and the
 *   default lists for good.
 * Idempotent: what is already retired is passed over, and a resource already gone or already in its final state
 * counts as retired. What could not be retired is counted in `failed` and left unmarked, for a later call.
 */
import { fieldError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { ConformanceArtifactKind } from '../../store/index.ts';
import { tombstoneEntity } from '../entities/tombstone-entity.ts';
import { revokeGrant } from '../grants/revoke-grant.ts';
import { revokeToken } from '../tokens/manage-tokens.ts';
import { deleteEndpoint } from '../webhooks/delete-endpoint.ts';
import { isRunId } from './run-artifacts.ts';

export interface RetiredRun {
  run_id: string;
  /** how many resources of each kind this call retired */
  retired: Record<ConformanceArtifactKind, number>;
  /** resources that could not be retired (left for a later call) */
  failed: number;
}

/** In this order: nothing is delivered to a deleted endpoint while the rest is retired. */
const ORDER: readonly ConformanceArtifactKind[] = [
  'webhook_endpoint',
  'token',
  'grant',
  'entity',
  'listing',
  'card_token',
  'merchant',
];

type Retire = (ctx: AppContext, credential: Credential | null, ref: string) => Promise<void>;

const RETIRE: Record<ConformanceArtifactKind, Retire | null> = {
  webhook_endpoint: async (ctx, credential, ref) => deleteEndpoint(ctx, credential, ref),
  token: async (ctx, credential, ref) => void (await revokeToken(ctx, credential, ref)),
  grant: async (ctx, credential, ref) => void (await revokeGrant(ctx, credential, ref)),
  entity: async (ctx, credential, ref) => void (await tombstoneEntity(ctx, credential, ref)),
  listing: null,
  card_token: null,
  merchant: null,
};

export async function retireRun(ctx: AppContext, credential: Credential | null, runId: string): Promise<RetiredRun> {
  if (!isRunId(runId)) {
    throw fieldError('invalid_id', '/params/id', 'must be `ns:conformance_report:<uuid>`');
  }
  // read on the writer's connection: it has seen every mark the run's requests committed (a read connection's
  // snapshot may be older)
  const rows = await ctx.writer.run(async (trx) =>
    trx
      .selectFrom('conformance_artifacts')
      .select(['kind', 'ref'])
      .where('run_id', '=', runId)
      .where('retired_at', 'is', null)
      .orderBy('seq')
      .execute(),
  );
  const retired = Object.fromEntries(ORDER.map((k) => [k, 0])) as Record<ConformanceArtifactKind, number>;
  let failed = 0;
  for (const kind of ORDER) {
    const done: string[] = [];
    for (const { ref } of rows.filter((r) => r.kind === kind)) {
      try {
        await RETIRE[kind]?.(ctx, credential, ref);
        done.push(ref);
      } catch (error) {
        // gone already (an endpoint a fixture deleted itself) is retired; anything else is left for a later call
        if ((error as { code?: string }).code === 'not_found') done.push(ref);
        else failed += 1;
      }
    }
    if (done.length === 0) continue;
    const now = ctx.clock.now().toISOString();
    for (let i = 0; i < done.length; i += 500) {
      const batch = done.slice(i, i + 500);
      await ctx.writer.run(async (trx) => {
        await trx.updateTable('conformance_artifacts').set({ retired_at: now }).where('ref', 'in', batch).execute();
      });
    }
    retired[kind] = done.length;
  }
  return { run_id: runId, retired, failed };
}
