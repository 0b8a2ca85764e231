/**
 * Nothing un-durable leaves the process: every answer waits, just before it is sent, until every commit it may
 * depend on is durable (store.answerDurable(); on SQLite the sync of the log, made off the event loop by
 * store/wal-barrier.ts, which says which commits those are: every commit any read has seen so far, and every commit
 * made outside the write queue). The write queue already resolves its units after the sync covering their batch;
 * this hook covers what it does not: a read that saw a row committed by a batch whose sync is still in flight, and
 * commits made outside the queue (webhook fan-out and settlement, listings seeding, the token-usage upsert, the
 * idempotency record written by an earlier onSend hook: this one is registered after the gateway's hooks, so it
 * runs after them).
 *
 * Fast path: when every such commit is already durable (always on PostgreSQL) the payload passes on at once, with
 * no promise. Once a sync has failed the store stays failed: every answer is replaced by
 * 503 `audit_unavailable` (the error handler's problem), except that 503 itself, which carries no stored data.
 */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/index.ts';

const SERVICE_UNAVAILABLE = 503;

export function registerDurableAnswers(
  app: FastifyInstance,
  store: Pick<Store, 'answerDurable' | 'answerPending' | 'durabilityFailure'>,
): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!store.answerPending) {
      done(null, payload);
      return;
    }
    if (store.durabilityFailure && reply.statusCode === SERVICE_UNAVAILABLE) {
      done(null, payload);
      return;
    }
    store.answerDurable().then(
      () => done(null, payload),
      (error: unknown) => done(error as Error),
    );
  });
}
