import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';

/** Rotates this instance's signing key and records the rotation as an event signed by the NEW key. */
export async function rotateSigningKey(
  ctx: AppContext,
  credential: Credential | null,
): Promise<{ retired: string; current: string }> {
  const result = await ctx.keys.rotate();
  await ctx.writer.run((trx) =>
    appendEvent(trx, ctx, {
      event_type: 'ns.key.rotated',
      actor_entity_id: actorOf(credential),
      principal_entity_id: null,
      subject_ref: result.current,
      reason_code: 'signing_key_rotated',
      data: { retired_key_id: result.retired, current_key_id: result.current },
    }),
  );
  return result;
}
