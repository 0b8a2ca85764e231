import type { Command } from 'commander';
import { buildApp } from '../app.ts';
import { loggerOptions } from '../http/observability.ts';
import { openRuntime } from '../runtime.ts';
import { startSweeping } from '../services/maintenance/sweep-expired.ts';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';
import { serveUntilStopped } from './serve-until-stopped.ts';

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
      await serveUntilStopped(ctx, app, {
        message: 'aar serving',
        onStart: () => startSweeping(ctx, (error) => app.log.error({ err: error }, 'housekeeping sweep failed')),
      });
    });
}
