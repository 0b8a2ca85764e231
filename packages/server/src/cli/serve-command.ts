import type { Command } from 'commander';
import { buildApp } from '../app.ts';
import { ensureBootstrapToken } from '../http/authenticate.ts';
import { loggerOptions } from '../http/observability.ts';
import { openRuntime } from '../runtime.ts';
import { startSweeping } from '../services/maintenance/sweep-expired.ts';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';

export function registerServeCommand(program: Command): void {
  withConfigOptions(
    program.command('serve').description('start the service (SQLite in the data dir unless DATABASE_URL is set)'),
  )
    .option('--host <host>', 'listen address (AAR_HOST, default 127.0.0.1)')
    .option('--port <port>', 'listen port (AAR_PORT, default 8080)')
    .option('--issuer-url <url>', 'where the JWKS is published (AAR_ISSUER_URL)')
    .option('--log-level <level>', 'pino level (AAR_LOG_LEVEL, default info)')
    .action(async (flags: ConfigFlags) => {
      const config = configFrom(flags);
      const ctx = await openRuntime(config);
      const app = await buildApp(ctx, { logger: loggerOptions(config) });
      await ensureBootstrapToken(ctx);
      const address = await app.listen({ host: config.host, port: config.port });
      app.log.info(
        { address, storage: ctx.store.dialect, location: ctx.store.location, key_id: ctx.keys.current().keyId },
        'aar serving',
      );

      const stopSweeping = startSweeping(ctx, (error) => app.log.error({ err: error }, 'housekeeping sweep failed'));
      let closing = false;
      const shutdown = async (signal: string): Promise<void> => {
        if (closing) return;
        closing = true;
        app.log.info({ signal }, 'shutting down');
        stopSweeping();
        await app.close();
        await ctx.store.close();
      };
      process.once('SIGINT', () => void shutdown('SIGINT'));
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      // `aar keys rotate` run beside a live server: SIGHUP makes it sign with the new key.
      process.on('SIGHUP', () => {
        ctx.keys.reload().then(
          () => app.log.info({ key_id: ctx.keys.current().keyId }, 'signing keys reloaded'),
          (error: unknown) => app.log.error({ err: error }, 'signing key reload failed'),
        );
      });
      await new Promise<void>((resolve) => app.server.once('close', () => resolve()));
    });
}
