import { randomBytes } from 'node:crypto';
import { AarError, generateWebhookSecret } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { readEndpoint } from './read-endpoint.ts';
import { appendWebhookEvent } from './webhook-events.ts';

/** how long a rotated-out secret keeps signing beside the new one (CONTRACT section 9) */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

export interface RotatedSecret {
  endpoint_id: string;
  /** the new `whsec_` secret, shown in this response only */
  secret: string;
  previous_secret_expires_at: string;
}

/**
 * A new secret for a `shared_secret` endpoint. For 24 h deliveries carry two `v1,` signatures (new and old) so the
 * receiver can switch at its own pace; a second rotation inside the window retires the oldest secret at once.
 */
export async function rotateSecret(
  ctx: AppContext,
  credential: Credential | null,
  endpointId: string,
): Promise<RotatedSecret> {
  const secret = generateWebhookSecret(new Uint8Array(randomBytes(32)));
  const now = ctx.clock.now();
  const until = new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString();
  await ctx.writer.run(async (trx) => {
    const before = await readEndpoint(trx, endpointId);
    if (before.profile !== 'shared_secret') {
      throw new AarError(
        'conflict',
        `webhook endpoint \`${endpointId}\` uses the \`${before.profile}\` profile, which signs with the service key: it has no secret`,
      );
    }
    await trx
      .updateTable('webhook_endpoints')
      .set({ secret, previous_secret: before.secret, previous_secret_until: until, updated_at: now.toISOString() })
      .where('endpoint_id', '=', endpointId)
      .execute();
    await appendWebhookEvent(
      trx,
      ctx,
      endpointId,
      actorOf(credential),
      'ns.webhook.secret_rotated',
      'webhook_secret_rotated',
      {
        previous_secret_expires_at: until,
      },
    );
  });
  return { endpoint_id: endpointId, secret, previous_secret_expires_at: until };
}
