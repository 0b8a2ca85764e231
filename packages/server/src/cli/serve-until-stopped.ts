/**
 * The life of a listening server, shared by `aar serve` and `aar audit-serve`: register the bootstrap token, listen,
 * reload signing keys on SIGHUP (after `aar keys rotate` beside a live server: both sign, documents or checkpoints),
 * stop gracefully on SIGINT/SIGTERM (in-flight requests finish, then the store closes).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { ensureBootstrapToken } from '../http/authenticate.ts';

export interface ServeOptions {
  /** the log line once listening */
  message: string;
  /** runs once listening; returns what to do on shutdown (awaited before the app and the store close) */
  onStart?: () => () => void | Promise<void>;
}

export async function serveUntilStopped(ctx: AppContext, app: FastifyInstance, options: ServeOptions): Promise<void> {
  await ensureBootstrapToken(ctx);
  const address = await app.listen({ host: ctx.config.host, port: ctx.config.port });
  app.log.info(
    { address, storage: ctx.store.dialect, location: ctx.store.location, key_id: ctx.keys.current().keyId },
    options.message,
  );
  const onStop = options.onStart?.();
  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await onStop?.();
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
