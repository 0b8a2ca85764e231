/** `GET /healthz`: public, not rate limited, and honest: it asks the database, with a deadline. */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { AarError } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { SERVER_VERSION } from './server-version.ts';

const DATABASE_DEADLINE_MS = 2_000;

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/healthz',
    {
      config: { public: true, rateLimit: false },
      schema: {
        summary: 'Liveness and database reachability',
        operationId: 'getHealth',
        description:
          'Answers 200 only when the database answers a query within 2 s, and 503 `storage_unavailable` otherwise: ' +
          'without its store the service can record no decision, so a load balancer should take it out. Never rate ' +
          'limited, so a monitor is not throttled into false alarms.',
        tags: ['operations'],
        response: {
          200: {
            type: 'object',
            required: ['status', 'storage', 'version'],
            properties: {
              status: { type: 'string', enum: ['ok'] },
              storage: { type: 'string', enum: ['sqlite', 'postgres'] },
              version: { type: 'string' },
            },
          },
        },
      },
    },
    async () => {
      await pingDatabase(ctx);
      return { status: 'ok', storage: ctx.store.dialect, version: SERVER_VERSION };
    },
  );
}

async function pingDatabase(ctx: AppContext): Promise<void> {
  // a failed sync of the log leaves the store refusing writes until restart (store/wal-barrier.ts)
  const failure = ctx.store.durabilityFailure;
  if (failure) {
    throw new AarError('storage_unavailable', 'the database log could not be made durable; restart the service', {
      cause: failure,
    });
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('database did not answer in time')), DATABASE_DEADLINE_MS);
  });
  try {
    await Promise.race([sql`select 1`.execute(ctx.store.db), deadline]);
  } catch (error) {
    // 503 with the fail-closed code: without the database no decision can be recorded in the audit chain
    throw new AarError('storage_unavailable', 'the database is unreachable', { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
