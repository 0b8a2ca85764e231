import type { Command } from 'commander';
import { buildApp } from '../app.ts';
import { loggerOptions } from '../http/observability.ts';
import { openRuntime } from '../runtime.ts';
import { startSweeping } from '../services/maintenance/sweep-expired.ts';
import { startMemoryRetentionWorker } from '../workers/memory-retention-worker.ts';
import { startReportWorker } from '../workers/report-worker.ts';
import { WebhookWorker } from '../workers/webhook-worker.ts';
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
    .option(
      '--start-unverified',
      'start even when the audit chain does not match its last checkpoint, logged loudly (AAR_START_UNVERIFIED)',
    )
    .action(async (flags: ConfigFlags) => {
      const config = configFrom(flags);
      const ctx = await openRuntime(config);
      const app = await buildApp(ctx, { logger: loggerOptions(config) });
      await serveUntilStopped(ctx, app, {
        message: 'aar serving',
        onStart: () => {
          const stopSweeping = startSweeping(ctx, (error) =>
            app.log.error({ err: error }, 'housekeeping sweep failed'),
          );
          if (config.webhookAllowInsecure) {
            app.log.warn(
              'AAR_WEBHOOK_ALLOW_INSECURE is set: webhooks may target http and private or loopback addresses (development and tests only)',
            );
          }
          // the webhook worker: logs name the endpoint, never its URL path, query or secret
          const worker = new WebhookWorker(ctx, {
            onError: (error, endpointId) => app.log.error({ err: error, endpoint_id: endpointId }, 'webhook worker'),
          });
          void worker.start().catch((error: unknown) => app.log.error({ err: error }, 'webhook worker did not start'));
          // opt-in capabilities (AAR_OPT_IN): scheduled reports, and memory content purged when its retention ends
          const stopReports = config.optIn.has('reports')
            ? startReportWorker(ctx, {
                onGenerated: (r) =>
                  app.log.info({ report_id: r.report_id, schedule_id: r.schedule_id }, 'report generated'),
                onError: (error) => app.log.error({ err: error }, 'report worker'),
              })
            : undefined;
          const stopMemory = config.optIn.has('memory')
            ? startMemoryRetentionWorker(ctx, {
                onPurged: (ids) => app.log.info({ purged: ids.length }, 'memory retention purge'),
                onError: (error) => app.log.error({ err: error }, 'memory retention worker'),
              })
            : undefined;
          return async () => {
            stopSweeping();
            await stopReports?.();
            await stopMemory?.();
            await worker.stop();
          };
        },
      });
    });
}
