import { fieldError, isJurisdiction, isLocalId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { duplicateAsConflict } from '../unique-violation.ts';
import { merchantView, type MerchantView } from './merchant-view.ts';

export interface CreateMerchantInput {
  id: string;
  display_name: string;
  category: string;
  jurisdiction: string;
}

export async function createMerchant(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateMerchantInput,
): Promise<MerchantView> {
  if (!isLocalId(input.id)) throw fieldError('invalid_id', '/id', 'must match `[A-Za-z0-9._-]{1,128}`');
  if (!isJurisdiction(input.jurisdiction)) {
    throw fieldError('invalid_request', '/jurisdiction', `\`${input.jurisdiction}\` is not an ISO 3166-1 alpha-2 code`);
  }
  const now = ctx.clock.now().toISOString();
  try {
    return await ctx.writer.run(async (trx) => {
      const row = await trx
        .insertInto('merchants')
        .values({
          merchant_id: input.id,
          display_name: input.display_name,
          category: input.category,
          jurisdiction: input.jurisdiction,
          state: 'active',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await appendEvent(trx, ctx, {
        event_type: 'ns.merchant.created',
        actor_entity_id: actorOf(credential),
        principal_entity_id: null,
        subject_ref: `ns:merchant:${input.id}`,
        reason_code: 'merchant_registered',
        data: { merchant_id: input.id, category: input.category, jurisdiction: input.jurisdiction },
      });
      return merchantView(row);
    });
  } catch (error) {
    throw duplicateAsConflict(error, `merchant \`${input.id}\``, '/id');
  }
}
