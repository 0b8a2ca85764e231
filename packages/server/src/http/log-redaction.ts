/**
 * What the logs must never hold: credentials (Authorization, cookies, `token` fields) and tokens put in a URL.
 * pino options are fixed when Fastify is created, so the caller of buildApp() passes `loggerOptions(config)`
 * (observability.ts); the gateway itself never logs a header or a body.
 */
import type { FastifyRequest } from 'fastify';
import { maskDigitRuns } from './pan-in-url.ts';

export const LOG_REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'bootstrapToken',
  '*.bootstrapToken',
];

const SECRET_QUERY = /([?&](?:access_token|token|api_key)=)[^&#]*/gi;

/** The URL with the values of token-carrying query parameters replaced. */
export function redactUrl(url: string): string {
  return maskDigitRuns(url.replace(SECRET_QUERY, '$1[redacted]'));
}

export type GatewayLoggerOptions = {
  redact: { paths: string[]; censor: string };
  serializers: { req: (request: FastifyRequest) => Record<string, unknown> };
};

export function gatewayLoggerOptions(): GatewayLoggerOptions {
  return {
    redact: { paths: [...LOG_REDACT_PATHS], censor: '[redacted]' },
    serializers: {
      req: (request) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
}
