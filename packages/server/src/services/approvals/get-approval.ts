import { AarError, parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { approvalView, type ApprovalView } from './approval-view.ts';

export async function getApproval(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<ApprovalView> {
  const id = parseMintedId('approval', rawId, '/params/id');
  const row = await ctx.store.db.selectFrom('approvals').selectAll().where('approval_id', '=', id).executeTakeFirst();
  if (!row) throw new AarError('not_found', `approval \`${id}\` does not exist`);
  if (credential?.role === 'principal') requirePrincipalAccess(credential, row.principal_entity_id);
  return approvalView(row, ctx.clock.now().toISOString());
}
