/**
 * Finds out, once per run, whether the deployment's webhook SSRF guard is on (CONTRACT section 9), before any fixture
 * registers a target that the guard should refuse. Against a deployment with `AAR_WEBHOOK_ALLOW_INSECURE=true` those
 * targets (`169.254.169.254`, `10.0.0.7`, `http://hooks.example.com`…) would be registered ENABLED and delivered to.
 *
 * The probe registers a target every guard refuses and that is harmless if accepted: plain http to loopback port 9
 * (discard), asymmetric profile (no secret to hand out). Answers:
 * - 422 `webhook_target_refused`: the guard is on.
 * - 2xx: the guard is off. The probe endpoint is deleted at once (it pointed at loopback, so nothing left the host).
 * - anything else (401, 403, 5xx, no answer): the runner cannot tell, and fails closed: it treats the guard as off.
 */
import { exchange } from './http-exchange.ts';
import type { RunTarget } from './run-fixture.ts';

export interface WebhookGuardState {
  /** true only when the deployment was seen refusing an insecure target */
  on: boolean;
  /** why fixtures that need the guard are skipped (when `on` is false) */
  reason: string;
}

export const PROBE_TARGET = 'http://127.0.0.1:9/aar-conformance-probe';

export async function probeWebhookGuard(
  target: RunTarget,
  headers: Readonly<Record<string, string>> = {},
): Promise<WebhookGuardState> {
  const auth = { ...headers, authorization: `Bearer ${target.token}` };
  let res;
  try {
    res = await exchange({
      method: 'POST',
      url: `${target.baseUrl}/v1/webhook-endpoints`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: PROBE_TARGET, profile: 'asymmetric', description: 'conformance probe' }),
    });
  } catch (error) {
    return { on: false, reason: `could not tell whether the webhook target guard is on: ${(error as Error).message}` };
  }
  const body = res.json as { code?: unknown; endpoint_id?: unknown } | undefined;
  if (res.status === 422 && body?.code === 'webhook_target_refused') return { on: true, reason: '' };
  if (res.status >= 200 && res.status < 300) {
    if (typeof body?.endpoint_id === 'string') {
      await exchange({
        method: 'DELETE',
        url: `${target.baseUrl}/v1/webhook-endpoints/${encodeURIComponent(body.endpoint_id)}`,
        headers: auth,
      }).catch(() => undefined);
    }
    return {
      on: false,
      reason:
        `the deployment accepts insecure webhook targets (it registered \`${PROBE_TARGET}\`: ` +
        'AAR_WEBHOOK_ALLOW_INSECURE is on), so a target this fixture expects refused would be registered and delivered to',
    };
  }
  return {
    on: false,
    reason: `could not tell whether the webhook target guard is on (the probe was answered ${res.status})`,
  };
}
