/**
 * The `references` of a bundle (CONTRACT section 12): one per part, in BUNDLE_PARTS order, each with the SHA-256 of
 * the part's RFC 8785 bytes, so a part fetched alone (`href`) or cut out of the bundle is checked without the rest.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeHex } from '../encoding/hex.ts';
import { canonicalBytes } from '../json/canonical-json.ts';
import { BUNDLE_PARTS, type BundlePartName, type BundleReference } from './bundle-document.ts';

/** Lowercase hex SHA-256 of the RFC 8785 bytes of `part` (`null` for an absent part hashes the text `null`). */
export function partDigest(part: unknown): string {
  return encodeHex(sha256(canonicalBytes(part === undefined ? null : part)));
}

export function partHref(bundleId: string, name: BundlePartName): string {
  return `/v1/bundles/${bundleId}/parts/${name}`;
}

export function buildBundleReferences(bundleId: string, parts: Record<BundlePartName, unknown>): BundleReference[] {
  return BUNDLE_PARTS.map(({ name, schema }) => ({
    name,
    schema,
    sha256: partDigest(parts[name]),
    href: partHref(bundleId, name),
  }));
}
