/**
 * The runner's own SSRF rule, whatever a fixture says: it never sends a request that could leave an ENABLED webhook
 * endpoint aimed at a non-loopback address. A request that registers or re-targets an endpoint
 * (`POST /v1/webhook-endpoints`, `PATCH /v1/webhook-endpoints/{id}` with a `url`) at a host other than a loopback
 * literal or `localhost` is sent only when the deployment was seen refusing insecure targets (webhook-guard-probe.ts)
 * AND the step expects a refusal (every expected status 4xx or 5xx). Otherwise the fixture is skipped with the reason.
 * Attacker assumption: none (the fixtures are ours); this protects the deployment a runner is pointed at, and the
 * hosts its worker would deliver to, from a fixture written carelessly.
 */
import { isIP } from 'node:net';
import type { PreparedRequest } from './http-exchange.ts';

const ENDPOINTS_PATH = /^\/v1\/webhook-endpoints(\/[^/?#]+)?\/?(\?.*)?$/;

/** The webhook URL a request would register or re-target an endpoint at, or undefined when it does neither. */
export function webhookTargetOf(request: PreparedRequest, baseUrl: string): string | undefined {
  if (!request.url.startsWith(baseUrl)) return undefined;
  const match = ENDPOINTS_PATH.exec(request.url.slice(baseUrl.length));
  if (!match) return undefined;
  const creates = request.method === 'POST' && match[1] === undefined;
  const retargets = (request.method === 'PATCH' || request.method === 'PUT') && match[1] !== undefined;
  if (!creates && !retargets) return undefined;
  let body: unknown;
  try {
    body = request.body === undefined ? undefined : JSON.parse(request.body);
  } catch {
    return undefined; // not JSON: the deployment refuses it before looking at any URL
  }
  const url = (body as { url?: unknown } | null | undefined)?.url;
  return typeof url === 'string' ? url : undefined;
}

/** True for `localhost` and IP literals in 127.0.0.0/8 or `::1`; every other host (and an unparsable URL) is not. */
export function isLoopbackTarget(raw: string): boolean {
  let host: string;
  try {
    host = new URL(raw).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith('[')) host = host.slice(1, -1);
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Why this request must not be sent, or undefined when it may be. */
export function unsafeWebhookTarget(
  request: PreparedRequest,
  baseUrl: string,
  guard: { on: boolean; reason: string },
  expectedStatuses: readonly number[] | undefined,
): string | undefined {
  const url = webhookTargetOf(request, baseUrl);
  if (url === undefined || isLoopbackTarget(url)) return undefined;
  if (!guard.on) return `would register a webhook endpoint at \`${url}\`: ${guard.reason}`;
  const expectsRefusal =
    expectedStatuses !== undefined && expectedStatuses.length > 0 && expectedStatuses.every((s) => s >= 400);
  if (!expectsRefusal) {
    return `would register an enabled webhook endpoint at the non-loopback \`${url}\` (the runner never does)`;
  }
  return undefined;
}
