import type { Command } from 'commander';
import { buildAuditApp } from '../audit/audit-app.ts';
import { ensureBootstrapToken } from '../http/authenticate.ts';
import { loggerOptions } from '../http/observability.ts';
import { openRuntime } from '../runtime.ts';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';

/** `aar audit-serve`: the audit chain's own service, `POST /append` and `GET /verify` at its root. */
export function registerAuditServeCommand(program: Command): void {
  withConfigOptions(
    program
      .command('audit-serve')
      .description('serve the audit chain alone (POST /append, GET /verify, checkpoints, proofs) on the same store'),
  )
    .option('--host <host>', 'listen address (AAR_HOST, default 127.0.0.1)')
    .option('--port <port>', 'listen port (AAR_PORT, default 8080)')
    .option('--issuer-url <url>', 'where the JWKS is published (AAR_ISSUER_URL)')
    .option('--log-level <level>', 'pino level (AAR_LOG_LEVEL, default info)')
    .action(async (flags: ConfigFlags) => {
      const config = configFrom(flags);
      const ctx = await openRuntime(config);
      const app = await buildAuditApp(ctx, { logger: loggerOptions(config) });
      await ensureBootstrapToken(ctx);
      const address = await app.listen({ host: config.host, port: config.port });
      app.log.info({ address, storage: ctx.store.dialect, location: ctx.store.location }, 'aar audit chain serving');
      let closing = false;
      const shutdown = async (): Promise<void> => {
        if (closing) return;
        closing = true;
        await app.close();
        await ctx.store.close();
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
      await new Promise<void>((resolve) => app.server.once('close', () => resolve()));
    });
}
