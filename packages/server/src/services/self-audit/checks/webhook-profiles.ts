import type { AppContext } from '../../../app-context.ts';
import { listEndpointProfiles } from '../../webhooks/list-endpoint-profiles.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/**
 * Webhook endpoints sign in a profile their receivers can rely on (CONTRACT section 9):
 * - fail: an enabled endpoint that is not https, or AAR_WEBHOOK_ALLOW_INSECURE on (development only: it lets events
 *   go in clear text and to private addresses);
 * - warn: an enabled `shared_secret` endpoint. Its HMAC proves origin to the receiver but not to a third party (the
 *   receiver holds the same secret and could have made it); `asymmetric` and `cose` are signed with the service key.
 * Endpoint ids only: URLs may carry secrets in their path or query.
 */
export async function checkWebhookProfiles(ctx: AppContext): Promise<SelfAuditCheck> {
  const endpoints = await listEndpointProfiles(ctx);
  const enabled = endpoints.filter((e) => e.state === 'enabled');
  const byProfile = { shared_secret: 0, asymmetric: 0, cose: 0 };
  for (const e of enabled) byProfile[e.profile]++;
  const insecure = enabled.filter((e) => e.scheme !== 'https').map((e) => e.endpoint_id);
  const symmetric = enabled.filter((e) => e.profile === 'shared_secret').map((e) => e.endpoint_id);
  const evidence = {
    endpoints: endpoints.length,
    enabled: enabled.length,
    enabled_by_profile: byProfile,
    allow_insecure: ctx.config.webhookAllowInsecure,
    not_https: insecure,
    shared_secret: symmetric,
  };
  if (insecure.length > 0 || ctx.config.webhookAllowInsecure) {
    return failed(
      'webhook_endpoint_profiles',
      'fail',
      ctx.config.webhookAllowInsecure
        ? 'AAR_WEBHOOK_ALLOW_INSECURE is on: events may go in clear text and to private addresses'
        : `${insecure.length} enabled endpoints are not https`,
      evidence,
      'Unset AAR_WEBHOOK_ALLOW_INSECURE (development only), and move each endpoint named in `not_https` to an https ' +
        'URL (PATCH /v1/webhook-endpoints/{id}) or disable it.',
    );
  }
  if (symmetric.length > 0) {
    return failed(
      'webhook_endpoint_profiles',
      'warn',
      `${symmetric.length} enabled endpoints use the shared_secret profile`,
      evidence,
      'Where a receiver must prove to others what the service sent, register the endpoint with the `asymmetric` or ' +
        '`cose` profile (signed with the service key, verifiable against the JWKS) and delete the shared_secret one.',
    );
  }
  return passed(
    'webhook_endpoint_profiles',
    `${enabled.length} enabled endpoints, all https, all signed by the service key`,
    evidence,
  );
}
