/**
 * The run marker (issue 26): what a conformance-kit run creates is recorded with its run (`conformance_artifacts`,
 * migration 0015), left out of the default lists, marketplace search and trust scores, and retired at the run's end
 * (retire-run.ts). The runner names its run in the `AAR-Conformance-Run` header of every request
 * (`ns:conformance_report:<uuid>`, the id of the report the run produces).
 * Attacker assumption: the header is caller text. It is honoured only from an admin credential, or from a credential
 * that the same run created (the fixtures' runtime and principal credentials), so nobody else can hide what they
 * create from the console's default lists. Hiding is only a default: `include_conformance=true` lists everything.
 */
import { sql, type RawBuilder } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { ConformanceArtifactKind } from '../../store/index.ts';
import { CONFORMANCE_REPORT_PREFIX } from './conformance-runs.ts';

export const RUN_HEADER = 'aar-conformance-run';
const RUN_ID = /^ns:conformance_report:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The routes that create what a run must retire, with the member of their answer that names what they created. */
export const ARTIFACT_ROUTES: Readonly<Record<string, { kind: ConformanceArtifactKind; member: string }>> = {
  '/v1/entities': { kind: 'entity', member: 'entity_id' },
  '/v1/grants': { kind: 'grant', member: 'grant_id' },
  '/v1/listings': { kind: 'listing', member: 'listing_id' },
  '/v1/webhook-endpoints': { kind: 'webhook_endpoint', member: 'endpoint_id' },
  '/v1/card-tokens': { kind: 'card_token', member: 'card_token_id' },
  '/v1/merchants': { kind: 'merchant', member: 'merchant_id' },
  '/v1/tokens': { kind: 'token', member: 'token_id' },
};

/** The run named by a request, or undefined (absent or not `ns:conformance_report:<uuid>`: ignored). */
export function runOfHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && RUN_ID.test(value) ? value : undefined;
}

export function isRunId(value: string): boolean {
  return value.startsWith(CONFORMANCE_REPORT_PREFIX) && RUN_ID.test(value);
}

/** Whether `credential` may mark what it creates as part of `runId`. */
export async function mayMarkForRun(ctx: AppContext, credential: Credential | null, runId: string): Promise<boolean> {
  if (credential === null) return false;
  if (credential.role === 'admin') return true;
  const own = await ctx.store.db
    .selectFrom('conformance_artifacts')
    .select('seq')
    .where('ref', '=', credential.token_id)
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return own !== undefined;
}

/** Records `ref` as created by `runId` (an idempotent replay of the creation records nothing new). */
export async function recordRunArtifact(
  ctx: AppContext,
  runId: string,
  kind: ConformanceArtifactKind,
  ref: string,
): Promise<void> {
  await ctx.writer.run(async (trx) => {
    await trx
      .insertInto('conformance_artifacts')
      .values({ run_id: runId, kind, ref, created_at: ctx.clock.now().toISOString(), retired_at: null })
      .onConflict((oc) => oc.column('ref').doNothing())
      .execute();
  });
}

/**
 * A WHERE condition: the row whose id is in `column` was not created by a conformance run. Used by every default
 * list; the column name is ours (never caller text).
 */
export function notRunArtifact(column: string): RawBuilder<boolean> {
  return sql<boolean>`not exists (select 1 from conformance_artifacts ca where ca.ref = ${sql.ref(column)})`;
}

/** The `include_conformance` query member of the list endpoints: `true` lists what conformance runs created too. */
export function includesRunArtifacts(query: { include_conformance?: string | undefined }): boolean {
  return query.include_conformance === 'true';
}
