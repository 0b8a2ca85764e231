/**
 * GET /v1/bundles/{id} and GET /v1/bundles/{id}/parts/{name}: the stored bundle byte for byte, and one part as the
 * RFC 8785 text its reference's sha256 covers. Whoever may read the decision may read its bundles (a principal: its
 * own decisions only, through the decisions service).
 */
import { AarError, canonicalJson, isBundlePartName, parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { getDecision } from '../decisions/decision-record.ts';
import { bundleNotFound } from './assemble-bundle.ts';

export async function getBundle(ctx: AppContext, credential: Credential | null, rawId: string): Promise<string> {
  const id = parseMintedId('bundle', rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('bundles')
    .select(['document', 'policy_decision_id'])
    .where('bundle_id', '=', id)
    .executeTakeFirst();
  if (!row) throw bundleNotFound(id);
  if (credential?.role === 'principal') await getDecision(ctx, credential, row.policy_decision_id);
  return row.document;
}

export async function getBundlePart(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  name: string,
): Promise<string> {
  if (!isBundlePartName(name)) {
    throw new AarError('not_found', `a bundle has no part \`${name.slice(0, 64)}\``, {
      errors: [{ path: '/params/name', message: 'not a part a bundle references' }],
    });
  }
  const bundle = JSON.parse(await getBundle(ctx, credential, rawId)) as Record<string, unknown>;
  return canonicalJson(bundle[name] ?? null);
}
