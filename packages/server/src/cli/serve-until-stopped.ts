/**
 * The life of a listening server, shared by `aar serve` and `aar audit-serve`: check the chain's tip against its last
 * signed checkpoint (refusing to start on a mismatch unless AAR_START_UNVERIFIED / --start-unverified, then logged
 * loudly), register the bootstrap token, listen, sign checkpoints on schedule (workers/checkpoint-worker.ts), reload
 * signing keys on SIGHUP (after `aar keys rotate` beside a live server: both sign, documents or checkpoints), stop
 * gracefully on SIGINT/SIGTERM (in-flight requests and a checkpoint in progress finish, then the store closes).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { AarError } from '@aar/core';
import { verifyTipAgainstCheckpoint } from '../audit/verify-tip.ts';
import { ensureBootstrapToken } from '../http/authenticate.ts';
import { startCheckpointWorker } from '../workers/checkpoint-worker.ts';

export interface ServeOptions {
  /** the log line once listening */
  message: string;
  /** runs once listening; returns what to do on shutdown (awaited before the app and the store close) */
  onStart?: () => () => void | Promise<void>;
}

export async function serveUntilStopped(ctx: AppContext, app: FastifyInstance, options: ServeOptions): Promise<void> {
  await checkTipAtStart(ctx, app);
  await ensureBootstrapToken(ctx);
  const address = await app.listen({ host: ctx.config.host, port: ctx.config.port });
  app.log.info(
    { address, storage: ctx.store.dialect, location: ctx.store.location, key_id: ctx.keys.current().keyId },
    options.message,
  );
  const onStop = options.onStart?.();
  const stopCheckpoints = startCheckpointWorker(ctx, {
    onSigned: (c) => app.log.debug({ size: c.size, origin: c.origin }, 'checkpoint signed'),
    onError: (error) => app.log.error({ err: error }, 'scheduled checkpoint failed'),
  });
  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await onStop?.();
    await stopCheckpoints();
    await app.close();
    await ctx.store.close();
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGHUP', () => {
    ctx.keys.reload().then(
      () => app.log.info({ key_id: ctx.keys.current().keyId }, 'signing keys reloaded'),
      (error: unknown) => app.log.error({ err: error }, 'signing key reload failed'),
    );
  });
  await new Promise<void>((resolve) => app.server.once('close', () => resolve()));
}

/** Refuses to start on a tip that does not extend the last checkpoint, unless told to (then says so, loudly). */
async function checkTipAtStart(ctx: AppContext, app: FastifyInstance): Promise<void> {
  const check = await verifyTipAgainstCheckpoint(ctx);
  if (check.ok) return;
  if (!ctx.config.startUnverified) {
    await app.close();
    await ctx.store.close();
    throw new AarError(
      'audit_unavailable',
      `refusing to start: the audit chain does not match its last checkpoint (${check.reason}); ` +
        'investigate (GET /v1/audit/verify names the first bad entry), or start anyway with --start-unverified ' +
        '(AAR_START_UNVERIFIED=true)',
    );
  }
  app.log.fatal(
    { reason: check.reason, start_unverified: true },
    'STARTING UNVERIFIED: the audit chain does not match its last checkpoint; new checkpoints will not be signed ' +
      'over it and the log must be investigated (GET /v1/audit/verify)',
  );
}
