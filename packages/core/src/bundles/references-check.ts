/**
 * references_digest: `references` lists every part exactly once, in BUNDLE_PARTS order, with its schema, the path
 * that serves it, and the SHA-256 of its RFC 8785 bytes as the bundle holds it now. A part edited after signing, or
 * a reference list that omits, repeats or reorders a part, fails here.
 */
import { isRecord } from '../decide/guards.ts';
import type { BundleContext } from './bundle-context.ts';
import { BUNDLE_PARTS } from './bundle-document.ts';
import { partDigest, partHref } from './bundle-references.ts';
import type { BundleCheckOutcome } from './bundle-verification.ts';

export function checkReferencesDigest(ctx: BundleContext): BundleCheckOutcome {
  const references = ctx.part('references');
  const bundleId = ctx.part('bundle_id');
  if (typeof bundleId !== 'string') return 'the bundle has no `bundle_id`';
  if (!Array.isArray(references)) return 'the bundle has no `references` list';
  if (references.length !== BUNDLE_PARTS.length) {
    return `\`references\` lists ${references.length} parts, not the ${BUNDLE_PARTS.length} of a bundle`;
  }
  for (const [index, expected] of BUNDLE_PARTS.entries()) {
    const ref: unknown = references[index];
    const at = `/references/${index}`;
    if (!isRecord(ref) || ref.name !== expected.name) return `${at} does not name part \`${expected.name}\``;
    if (ref.schema !== expected.schema) return `${at} does not give schema \`${expected.schema}\``;
    if (ref.href !== partHref(bundleId, expected.name)) return `${at} href is not this bundle's part path`;
    const part = ctx.part(expected.name);
    if (part === undefined) return `part \`${expected.name}\` is missing`;
    if (ref.sha256 !== partDigest(part)) return `part \`${expected.name}\` does not hash to its reference's sha256`;
  }
  return { ok: true, detail: `${BUNDLE_PARTS.length} parts hash to their references` };
}
