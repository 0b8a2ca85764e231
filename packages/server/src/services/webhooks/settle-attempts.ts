/**
 * Records what a round of attempts gave (CONTRACT section 9): 2xx succeeded; anything else (3xx included: redirects
 * are not followed; no status at all: timeout, refused connection, refused target) failed, with the next attempt
 * queued per the retry schedule (later if `Retry-After` asks, on 429 and 503); the 10th failure is `exhausted`
 * (`ns.webhook.delivery_exhausted`). A 410 disables the endpoint, as does failing without a success for 5 days
 * (`ns.webhook.endpoint_disabled`). Rounds that write events run through the write queue (event + audit entry in
 * the same transaction); the others in one plain transaction.
 * INVARIANT: an attempt row is settled once: only a `pending` row is updated, so a settle that comes late (its
 * endpoint was deleted, or its lease taken over) changes nothing.
 */
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
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
}

export function succeeded(response: DeliveryResponse): boolean {
  return response.status !== null && response.status >= 200 && response.status <= 299;
}

export async function settleAttempts(
  ctx: AppContext,
  endpoint: WebhookEndpointRow,
  outcomes: readonly AttemptOutcome[],
): Promise<SettleResult> {
  if (outcomes.length === 0) return { disabled: null };
  let failingSince = endpoint.failing_since;
  for (const o of outcomes) {
    if (succeeded(o.response)) failingSince = null;
    else failingSince ??= o.attemptedAt.toISOString();
  }
  const lastAt = outcomes[outcomes.length - 1]!.attemptedAt.getTime();
  const disable: DisabledReason | null = outcomes.some((o) => o.response.status === 410)
    ? 'gone'
    : failingSince !== null && lastAt - Date.parse(failingSince) >= FAILING_DISABLE_MS
      ? 'failing'
      : null;
  const exhausting = outcomes.some((o) => !succeeded(o.response) && o.attempt.attempt >= MAX_ATTEMPTS);

  const unit = async (trx: Transaction<Database>, withEvents: boolean): Promise<SettleResult> => {
    for (const o of outcomes) await settleOne(trx, ctx, endpoint, o, withEvents);
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
    return { disabled: null };
  };
  return disable || exhausting
    ? ctx.writer.run((trx) => unit(trx, true))
    : ctx.store.db.transaction().execute((trx) => unit(trx, false));
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
  const settled = await trx
    .updateTable('webhook_attempts')
    .set({
      status,
      attempted_at: attemptedAt,
      response_status: response.status,
      duration_ms: response.durationMs,
      error: response.error,
      next_attempt_at: next,
    })
    .where('seq', '=', attempt.seq)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(settled.numUpdatedRows) !== 1) return;
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
