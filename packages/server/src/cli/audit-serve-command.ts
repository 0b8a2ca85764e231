import type { Command } from 'commander';
import { buildAuditApp } from '../audit/audit-app.ts';
import { loggerOptions } from '../http/observability.ts';
import { openRuntime } from '../runtime.ts';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';
import { serveUntilStopped } from './serve-until-stopped.ts';

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
    .option(
      '--start-unverified',
      'start even when the audit chain does not match its last checkpoint, logged loudly (AAR_START_UNVERIFIED)',
    )
    .action(async (flags: ConfigFlags) => {
      const config = configFrom(flags);
      const ctx = await openRuntime(config);
      const app = await buildAuditApp(ctx, { logger: loggerOptions(config) });
      await serveUntilStopped(ctx, app, { message: 'aar audit chain serving' });
    });
}
