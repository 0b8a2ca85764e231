/** Request ids, metrics and the health check, wired in one call; log redaction is applied by buildApp's logger. */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { AppContext } from '../app-context.ts';
import type { AppConfig } from '../config.ts';
import { registerHealth } from './health.ts';
import { gatewayLoggerOptions, type GatewayLoggerOptions } from './log-redaction.ts';
import { registerMetrics } from './metrics.ts';
import { registerReplayMismatchMetrics } from './replay-mismatch-metrics.ts';
import { registerRequestIds } from './request-id.ts';
import { registerWriteQueueMetrics } from './write-queue-metrics.ts';

export { gatewayLoggerOptions, LOG_REDACT_PATHS, redactUrl } from './log-redaction.ts';
export { metricsRegistryOf } from './metrics.ts';
export { REQUEST_ID_HEADER, requestIdFor } from './request-id.ts';

/** pino options for buildApp(): the configured level, redaction of credentials, tokens stripped from URLs. */
export type LoggerOptions = GatewayLoggerOptions & { level: string };

export function loggerOptions(config: Pick<AppConfig, 'logLevel'>): LoggerOptions {
  return { level: config.logLevel, ...gatewayLoggerOptions() };
}

export interface ObservabilityResult {
  registry: Registry;
}

export function registerObservability(app: FastifyInstance, ctx: AppContext): ObservabilityResult {
  registerRequestIds(app);
  const registry = registerMetrics(app);
  registerWriteQueueMetrics(registry, ctx.writer);
  registerReplayMismatchMetrics(registry, ctx);
  registerHealth(app, ctx);
  return { registry };
}
