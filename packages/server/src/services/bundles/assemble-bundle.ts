/**
 * POST /v1/bundles/assemble (CONTRACT section 12): one decision and its whole evidence chain as a signed
 * `ns.authority_proof_bundle.v1`, stored write-once before it is answered, then served byte for byte.
 * INVARIANT: every reference's sha256 is computed over the very part object that is signed and stored, so a part
 * served alone (GET …/parts/{name}) hashes to its reference.
 */
import {
  AUTHORITY_PROOF_BUNDLE_SCHEMA,
  AarError,
  buildBundleReferences,
  canonicalJson,
  mintedId,
  parseMintedId,
  PURPOSE_MANIFEST_SCHEMA,
  signDocument,
  type UnsignedAuthorityProofBundle,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { readBundleParts } from './bundle-parts.ts';

export interface AssembleBundleInput {
  policy_decision_id: string;
  purpose?: { purpose: string; requested_by?: string; ticket?: string };
}

/** What a bundle is for when the caller does not say. */
export const DEFAULT_PURPOSE = 'decision_evidence';

export async function assembleBundle(
  ctx: AppContext,
  credential: Credential | null,
  input: AssembleBundleInput,
): Promise<{ bundleId: string; text: string }> {
  const decisionId = parseMintedId('decision', input.policy_decision_id, '/policy_decision_id');
  const parts = await readBundleParts(ctx, credential, decisionId);
  const bundleId = mintedId('bundle', ctx.newUuid());
  const createdAt = ctx.clock.now().toISOString();
  const purpose = {
    schema_version: PURPOSE_MANIFEST_SCHEMA,
    policy_decision_id: decisionId,
    purpose: input.purpose?.purpose ?? DEFAULT_PURPOSE,
    requested_by: input.purpose?.requested_by ?? actorOf(credential),
    ticket: input.purpose?.ticket ?? null,
    requested_at: createdAt,
  } as const;
  const all = { purpose_manifest: purpose, ...parts };
  const unsigned = {
    schema_version: AUTHORITY_PROOF_BUNDLE_SCHEMA,
    bundle_id: bundleId,
    created_at: createdAt,
    ...all,
    references: buildBundleReferences(bundleId, all),
  } as UnsignedAuthorityProofBundle;
  const text = canonicalJson(await signDocument(unsigned, ctx.keys.current()));
  await ctx.writer.run(async (trx) => {
    await trx
      .insertInto('bundles')
      .values({
        bundle_id: bundleId,
        policy_decision_id: decisionId,
        document: text,
        created_by: credential?.token_id ?? null,
        created_at: createdAt,
      })
      .execute();
  });
  return { bundleId, text };
}

export function bundleNotFound(id: string): AarError {
  return new AarError('not_found', `bundle \`${id}\` does not exist`);
}
