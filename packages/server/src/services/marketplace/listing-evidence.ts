/**
 * A listing's conformance evidence (issue 26): a `ns.conformance_report.v1` about THAT listing's deployment, signed by
 * the key its publisher registered. Checked when the listing is registered and again every time the report feeds a
 * score (a stored row is data, not proof).
 * Attacker assumption: the registering admin and the report are both untrusted for this purpose. A report names its
 * own `signature.key_id`; it is ignored: the only key tried is the `public_key_jwk` of the listing's publisher entity
 * (`publisher.entity_id`). This service's own keys never count as a publisher's, so this service's self-run reports
 * (`POST /v1/conformance/runs`) are never evidence for a listing, whoever cites them. The report's
 * `target.base_url` must be the listing's `deployment_url`. A partial run never counts as a full one: every fixture
 * of the kit that the run did not pass (failed, skipped, or not run because its profile was not requested) counts
 * as failed.
 */
import {
  CONFORMANCE_PROFILE_IDS,
  CONFORMANCE_REPORT_SCHEMA,
  parseEntityId,
  parsePublicEd25519Jwk,
  summarizeFixtureResults,
  verifyDocument,
  type ConformanceReport,
  type Ed25519PublicJwk,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';

export interface EvidenceClaim {
  /** the publisher's entity, whose registered key must have signed the report */
  publisher_entity_id: string | null;
  /** the deployment the listing offers, which the report must be about */
  deployment_url: string | null;
}

export type EvidenceCheck =
  { valid: true; passed: number; failed: number; finished_at: string } | { valid: false; reason: string };

/** `https://host[:port][/path]` without a trailing slash, or undefined when `raw` is not such a URL. */
export function normalizeDeploymentUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return undefined;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The publisher's registered key, unless it is missing, the entity is erased, or the key is one of this service's. */
async function publisherKey(ctx: AppContext, entityId: string): Promise<Ed25519PublicJwk | string> {
  let id: string;
  try {
    id = parseEntityId(entityId, '/publisher/entity_id').id;
  } catch {
    return 'the publisher entity id is malformed';
  }
  const row = await ctx.store.db
    .selectFrom('entities')
    .select(['public_key_jwk', 'state'])
    .where('entity_id', '=', id)
    .executeTakeFirst();
  if (!row) return `the publisher entity \`${entityId}\` does not exist`;
  if (row.state === 'tombstoned') return `the publisher entity \`${entityId}\` is erased`;
  if (row.public_key_jwk === null) return `the publisher entity \`${entityId}\` has registered no key`;
  let jwk: Ed25519PublicJwk;
  try {
    const raw: unknown = typeof row.public_key_jwk === 'string' ? JSON.parse(row.public_key_jwk) : row.public_key_jwk;
    jwk = parsePublicEd25519Jwk(raw, '/public_key_jwk');
  } catch {
    return `the publisher entity \`${entityId}\` has no usable Ed25519 key`;
  }
  const own = await ctx.keys.jwks();
  if (own.keys.some((k) => (k as { x?: unknown }).x === jwk.x)) {
    return 'the publisher key is one of this service’s own keys: this service’s reports are not evidence for a listing';
  }
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
}

export async function checkListingEvidence(
  ctx: AppContext,
  report: unknown,
  claim: EvidenceClaim,
): Promise<EvidenceCheck> {
  if (claim.publisher_entity_id === null) return { valid: false, reason: 'the listing names no publisher entity' };
  if (claim.deployment_url === null) return { valid: false, reason: 'the listing names no deployment_url' };
  const key = await publisherKey(ctx, claim.publisher_entity_id);
  if (typeof key === 'string') return { valid: false, reason: key };
  // the report's own key_id is ignored: whatever it names, only the publisher's registered key is tried
  const signed = await verifyDocument(report, () => key);
  if (!signed.valid)
    return { valid: false, reason: `the report is not signed by the publisher’s key (${signed.failure})` };
  const r = report as ConformanceReport;
  if (
    r.schema_version !== CONFORMANCE_REPORT_SCHEMA ||
    !Array.isArray(r.results) ||
    typeof r.kit !== 'object' ||
    r.kit === null ||
    typeof r.summary !== 'object' ||
    r.summary === null ||
    typeof r.passed !== 'boolean'
  ) {
    return { valid: false, reason: `the report is not a \`${CONFORMANCE_REPORT_SCHEMA}\`` };
  }
  if (normalizeDeploymentUrl(String(r.target?.base_url)) !== claim.deployment_url) {
    return {
      valid: false,
      reason: `the report is about \`${String(r.target?.base_url)}\`, not the listing’s deployment`,
    };
  }
  // counts are recomputed from the results, never taken from the summary
  const counted = summarizeFixtureResults(r.results);
  const kitFixtures = Number.isInteger(r.kit.fixtures) && r.kit.fixtures > 0 ? r.kit.fixtures : counted.fixtures;
  const full =
    CONFORMANCE_PROFILE_IDS.every((p) => r.profiles_requested?.includes(p)) && counted.fixtures >= kitFixtures;
  // everything the run did not pass counts against it, and a partial run always loses at least one fixture
  const notPassed = Math.max(kitFixtures - counted.passed, full ? 0 : 1);
  return { valid: true, passed: counted.passed, failed: notPassed, finished_at: String(r.finished_at) };
}
