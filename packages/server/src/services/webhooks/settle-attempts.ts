/**
 * Records what a round of attempts gave (CONTRACT section 9): 2xx succeeded; anything else (3xx included: redirects
 * are not followed; no status at all: timeout, refused connection, refused target) failed, with the next attempt
 * queued per the retry schedule (later if `Retry-After` asks, on 429 and 503); the 10th failure is `exhausted`
 * (`ns.webhook.delivery_exhausted`). A 410 disables the endpoint, as does failing without a success for 5 days
 * (`ns.webhook.endpoint_disabled`). Rounds that write events run through the write queue (event + audit entry in
 * the same transaction); the others in one plain transaction.
 * INVARIANT: an attempt row is settled once: only a `pending` row is updated, so a settle that comes late (its
 * endpoint was deleted, or its lease taken over) changes nothing.
 * A round is one commit: its attempts, the endpoint's failing state and (when asked) the renewal of the worker's
 * lease, so a drained round costs one fsync on SQLite and one round trip of COMMIT on PostgreSQL.
 */
import { CompiledQuery, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { executeCompiled, prepareQuery } from '../../store/prepared-query.ts';
import type { DeliveryResponse } from './deliver-attempt.ts';
import type { DueAttempt } from './due-attempts.ts';
import type { WebhookEndpointRow } from './endpoint-view.ts';
import { FAILING_DISABLE_MS, MAX_ATTEMPTS, parseRetryAfter, retryDelayMs } from './retry-schedule.ts';
import { disableEndpointIn, type DisabledReason } from './set-endpoint-state.ts';
import { appendWebhookEvent } from './webhook-events.ts';

export interface AttemptOutcome {
  attempt: DueAttempt;
  attemptedAt: Date;
  response: DeliveryResponse;
}

export interface SettleResult {
  /** set when this round disabled the endpoint */
  disabled: DisabledReason | null;
  /** with `lease`: the endpoint as it is after the round, still leased by the owner; undefined once the lease is lost */
  endpoint?: WebhookEndpointRow | undefined;
}

/** Extend the owner's lease on the endpoint in the round's transaction (the worker's renewal after a round). */
export interface LeaseRenewal {
  owner: string;
  until: string;
}

/** The one write per attempt: the row of a pending attempt gets its result (prepared: built and compiled once). */
const SETTLE_ATTEMPT = prepareQuery(
  ['seq', 'status', 'attempted_at', 'response_status', 'duration_ms', 'error', 'next_attempt_at'],
  (
    db,
    a: {
      seq: number;
      status: 'succeeded' | 'failed' | 'exhausted';
      attempted_at: string;
      response_status: number | null;
      duration_ms: number;
      error: string | null;
      next_attempt_at: string | null;
    },
  ) =>
    db
      .updateTable('webhook_attempts')
      .set({
        status: a.status,
        attempted_at: a.attempted_at,
        response_status: a.response_status,
        duration_ms: a.duration_ms,
        error: a.error,
        next_attempt_at: a.next_attempt_at,
      })
      .where('seq', '=', a.seq)
      .where('status', '=', 'pending'),
);

export function succeeded(response: DeliveryResponse): boolean {
  return response.status !== null && response.status >= 200 && response.status <= 299;
}

export async function settleAttempts(
  ctx: AppContext,
  endpoint: WebhookEndpointRow,
  outcomes: readonly AttemptOutcome[],
  lease?: LeaseRenewal,
): Promise<SettleResult> {
  if (outcomes.length === 0 && !lease) return { disabled: null };
  let failingSince = endpoint.failing_since;
  for (const o of outcomes) {
    if (succeeded(o.response)) failingSince = null;
    else failingSince ??= o.attemptedAt.toISOString();
  }
  const lastAt = outcomes.at(-1)?.attemptedAt.getTime();
  const disable: DisabledReason | null = outcomes.some((o) => o.response.status === 410)
    ? 'gone'
    : failingSince !== null && lastAt !== undefined && lastAt - Date.parse(failingSince) >= FAILING_DISABLE_MS
      ? 'failing'
      : null;
  const exhausting = outcomes.some((o) => !succeeded(o.response) && o.attempt.attempt >= MAX_ATTEMPTS);

  const unit = async (trx: Transaction<Database>, withEvents: boolean): Promise<SettleResult> => {
    const successes = outcomes.filter((o) => succeeded(o.response));
    for (let i = 0; i < successes.length; i += SUCCESS_CHUNK) {
      await settleSuccesses(trx, ctx.store.dialect === 'postgres', successes.slice(i, i + SUCCESS_CHUNK));
    }
    for (const o of outcomes) if (!succeeded(o.response)) await settleOne(trx, ctx, endpoint, o, withEvents);
    if (failingSince !== endpoint.failing_since) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: failingSince })
        .where('endpoint_id', '=', endpoint.endpoint_id)
        .execute();
    }
    if (disable && withEvents) {
      const fresh = await trx
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('endpoint_id', '=', endpoint.endpoint_id)
        .executeTakeFirst();
      if (fresh && fresh.state === 'enabled') {
        await disableEndpointIn(
          trx,
          ctx,
          { ...fresh, failing_since: endpoint.failing_since ?? failingSince },
          null,
          disable,
        );
        return { disabled: disable };
      }
    }
    if (!lease) return { disabled: null };
    const renewed = await trx
      .updateTable('webhook_endpoints')
      .set({ lease_until: lease.until })
      .where('endpoint_id', '=', endpoint.endpoint_id)
      .where('lease_owner', '=', lease.owner)
      .returningAll()
      .executeTakeFirst();
    return { disabled: null, endpoint: renewed };
  };
  return disable || exhausting
    ? ctx.writer.run((trx) => unit(trx, true))
    : ctx.store.db.transaction().execute((trx) => unit(trx, false));
}

/** Successes settled per statement: 4 parameters each, far below either database's limit. */
const SUCCESS_CHUNK = 500;

/** The statement for `n` successes, per dialect (placeholders `?` or `$i`); built once per length. */
const successStatements = new Map<string, string>();

function successStatement(postgres: boolean, n: number): string {
  const key = `${postgres ? 'pg' : 'sqlite'}:${n}`;
  let text = successStatements.get(key);
  if (text === undefined) {
    const rows = Array.from({ length: n }, (_, i) =>
      postgres ? `($${4 * i + 1}, $${4 * i + 2}, $${4 * i + 3}, $${4 * i + 4})` : '(?, ?, ?, ?)',
    );
    text = `update webhook_attempts
      set status = 'succeeded', attempted_at = v.column2, response_status = cast(v.column3 as integer),
        duration_ms = cast(v.column4 as integer), error = null, next_attempt_at = null
      from (values ${rows.join(', ')}) as v
      where webhook_attempts.seq = cast(v.column1 as bigint) and webhook_attempts.status = 'pending'`;
    successStatements.set(key, text);
  }
  return text;
}

/**
 * Successes need nothing but their own row's update (no retry, no event), so they are settled by one statement per
 * chunk instead of one per attempt (on PostgreSQL, one round trip instead of hundreds). The statement's text holds
 * placeholders only (every value is a bound parameter) and is built once per length, not through the query builder,
 * whose cost per value was most of a round's settling. Casts: PostgreSQL types the parameters of a VALUES list as text.
 */
async function settleSuccesses(
  trx: Transaction<Database>,
  postgres: boolean,
  outcomes: readonly AttemptOutcome[],
): Promise<void> {
  const parameters: unknown[] = [];
  for (const o of outcomes) {
    parameters.push(o.attempt.seq, o.attemptedAt.toISOString(), o.response.status, o.response.durationMs);
  }
  await executeCompiled(trx, CompiledQuery.raw(successStatement(postgres, outcomes.length), parameters));
}

async function settleOne(
  trx: Transaction<Database>,
  ctx: AppContext,
  endpoint: WebhookEndpointRow,
  o: AttemptOutcome,
  withEvents: boolean,
): Promise<void> {
  const { attempt, response } = o;
  const attemptedAt = o.attemptedAt.toISOString();
  const ok = succeeded(response);
  const throttled = response.status === 429 || response.status === 503;
  const delay = ok
    ? null
    : retryDelayMs(attempt.attempt, throttled ? parseRetryAfter(response.retryAfter, o.attemptedAt) : null);
  const next = delay === null ? null : new Date(o.attemptedAt.getTime() + delay).toISOString();
  const status = ok ? 'succeeded' : next === null ? 'exhausted' : 'failed';
  const settled = await SETTLE_ATTEMPT.execute(trx, {
    seq: attempt.seq,
    status,
    attempted_at: attemptedAt,
    response_status: response.status,
    duration_ms: response.durationMs,
    error: response.error,
    next_attempt_at: next,
  });
  if (Number(settled.numAffectedRows ?? 0) !== 1) return;
  if (status === 'failed') {
    await trx
      .insertInto('webhook_attempts')
      .values({
        endpoint_id: endpoint.endpoint_id,
        event_id: attempt.event_id,
        event_seq: attempt.event_seq,
        event_type: attempt.event_type,
        attempt: attempt.attempt + 1,
        status: 'pending',
        replay: attempt.replay,
        next_attempt_at: next,
        attempted_at: null,
        response_status: null,
        duration_ms: null,
        error: null,
        created_at: attemptedAt,
      })
      .execute();
  } else if (status === 'exhausted' && withEvents) {
    await appendWebhookEvent(
      trx,
      ctx,
      endpoint.endpoint_id,
      null,
      'ns.webhook.delivery_exhausted',
      'delivery_exhausted',
      {
        endpoint_id: endpoint.endpoint_id,
        event_id: attempt.event_id,
        event_type: attempt.event_type,
        attempts: attempt.attempt,
      },
    );
  }
}
