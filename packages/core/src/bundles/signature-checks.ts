/**
 * The checks that are signatures over single parts: the bundle itself, the decision map, the evidence pack (with the
 * pack's own bindings, proof and checkpoint, but not its replay: replay_equal judges that), and the bundle's
 * checkpoint. Keys come only from the caller's JWKS, never from the bundle.
 */
import { isRecord, ownValue } from '../decide/guards.ts';
import { verifyEvidencePack } from '../evidence/verify-evidence-pack.ts';
import { canonicalJson } from '../json/canonical-json.ts';
import { parseCheckpointJson } from '../merkle/checkpoint-json.ts';
import { verifyDocument } from '../signing/verify-document.ts';
import type { BundleContext } from './bundle-context.ts';
import { AUTHORITY_PROOF_BUNDLE_SCHEMA } from './bundle-document.ts';
import type { BundleCheckOutcome, VerifyBundleOptions } from './bundle-verification.ts';

async function signatureOf(doc: unknown, ctx: BundleContext, what: string): Promise<true | string> {
  if (doc === undefined || doc === null) return `the bundle has no ${what}`;
  const result = await verifyDocument(doc, ctx.jwks);
  return result.valid || `the ${what} signature does not verify (${result.failure ?? 'signature_mismatch'})`;
}

export async function checkBundleSignature(ctx: BundleContext): Promise<BundleCheckOutcome> {
  if (!isRecord(ctx.bundle)) return 'the bundle is not a json object';
  if (ctx.bundle.schema_version !== AUTHORITY_PROOF_BUNDLE_SCHEMA) {
    return `\`schema_version\` is not \`${AUTHORITY_PROOF_BUNDLE_SCHEMA}\``;
  }
  return signatureOf(ctx.bundle, ctx, 'bundle');
}

export async function checkDecisionMapSignature(ctx: BundleContext): Promise<BundleCheckOutcome> {
  const map = ctx.part('decision_map');
  const signed = await signatureOf(map, ctx, 'decision map');
  if (signed !== true) return signed;
  // the map the pack signed and the chain committed to, not merely a map this key signed once
  if (ctx.pack === undefined || canonicalJson(map) !== canonicalJson(ownValue(ctx.pack, 'decision_map'))) {
    return "the decision map is not the evidence pack's decision map";
  }
  return true;
}

export async function checkEvidencePackSignature(
  ctx: BundleContext,
  options: VerifyBundleOptions,
): Promise<BundleCheckOutcome> {
  if (ctx.pack === undefined) return 'the bundle has no evidence pack';
  const origin = options.origin === undefined ? {} : { origin: options.origin };
  const result = await verifyEvidencePack(ctx.pack, ctx.jwks, origin);
  const failed = result.checks.filter((c) => c.check !== 'replay' && !c.valid);
  if (failed.length > 0) {
    return `the evidence pack does not verify: ${failed.map((c) => `${c.check} ${c.failure ?? ''}`.trim()).join(', ')}`;
  }
  return { ok: true, detail: `signed by \`${result.key_id ?? ''}\`; bindings, audit entry and its proof hold` };
}

export async function checkCheckpointSignature(
  ctx: BundleContext,
  options: VerifyBundleOptions,
): Promise<BundleCheckOutcome> {
  const raw = ctx.part('checkpoint');
  let origin: string;
  try {
    origin = parseCheckpointJson(raw).origin;
  } catch {
    return 'the checkpoint is missing or malformed';
  }
  // a checkpoint of another log proves nothing about this one, even under the same key
  if (options.origin !== undefined && origin !== options.origin) {
    return `the checkpoint is of log \`${origin.slice(0, 255)}\`, not \`${options.origin}\``;
  }
  return signatureOf(raw, ctx, 'checkpoint');
}
