import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { readEndpoint } from './read-endpoint.ts';
import { appendWebhookEvent } from './webhook-events.ts';

/**
 * Deletes an endpoint and its attempts log (operational rows; the events themselves stay in the outbox and the
 * deletion is an event and an audit entry). An attempt in flight when the row goes settles nothing.
 */
export async function deleteEndpoint(
  ctx: AppContext,
  credential: Credential | null,
  endpointId: string,
): Promise<void> {
  await ctx.writer.run(async (trx) => {
    const before = await readEndpoint(trx, endpointId);
    await trx.deleteFrom('webhook_attempts').where('endpoint_id', '=', endpointId).execute();
    await trx.deleteFrom('webhook_endpoints').where('endpoint_id', '=', endpointId).execute();
    await appendWebhookEvent(
      trx,
      ctx,
      endpointId,
      actorOf(credential),
      'ns.webhook.endpoint_deleted',
      'webhook_endpoint_deleted',
      {
        previous_state: before.state,
        new_state: 'deleted',
      },
    );
  });
}
