import { AarError, parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { assembleEvidencePack, readStoredEvidencePack } from './assemble-evidence-pack.ts';
import { findDecisionByEvidence } from './find-decision-by-evidence.ts';

/**
 * GET /v1/evidence-packs/{id}: the stored pack's exact text, assembled on first request. A principal credential
 * sees only its own decisions' packs. Packs of tombstoned entities stay available (docs/audit.md, "Erasure").
 */
export async function getEvidencePack(ctx: AppContext, credential: Credential | null, rawId: string): Promise<string> {
  const id = parseMintedId('evidence-pack', rawId, '/params/id');
  const decision = await findDecisionByEvidence(ctx.store.db, ctx.store.dialect, id);
  if (!decision) throw new AarError('not_found', `evidence pack \`${id}\` does not exist`);
  if (credential?.role === 'principal') requirePrincipalAccess(credential, decision.principal_entity_id);
  return (await readStoredEvidencePack(ctx, id)) ?? assembleEvidencePack(ctx, decision, id);
}
