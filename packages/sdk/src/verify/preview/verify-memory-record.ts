/**
 * A memory record (`ns.memory_record.v1`, docs/memory.md), offline, in either of its two signed forms:
 * - `form: "record"`: `shape`, `retention` (`retain_until` = `created_at` + `retention_days` days), `authorship`
 *   (an `rfc9421` write names the agent key's thumbprint and the signature's instant, a `credential` one neither),
 *   and, when the
 *   caller passes the content it was served with its salt, `content`: base64url SHA-256 of the RFC 8785 text of
 *   `{ content, salt }` is `content_digest`, and the content's RFC 8785 text is `content_bytes` long.
 * - `form: "tombstone"`: `shape`, `tombstone` (`sequence` 1 exactly when no previous digest, the record ended no
 *   later than the tombstone, no content member), `content` (a content handed beside a tombstone fails: an ended
 *   record keeps none), and, when the caller passes the record it ends, `record`: `record_digest` is the digest of
 *   that record's RFC 8785 text (signature included) and both name the same record, principal, agent,
 *   classification and creation instant.
 * The digests are base64url SHA-256 of RFC 8785 text (docs/memory.md). The chain of a principal's tombstones is
 * verifyMemoryChain's.
 */
import { canonicalJson } from '@aar/core';
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { before, isCount, isNsId, isTimestamp, member, requireFields } from './document-fields.ts';
import {
  fail,
  isRecord,
  verifyPreviewDocument,
  type DocumentCheck,
  type PreviewCheck,
  type PreviewVerificationResult,
} from './preview-verification.ts';
import { canonicalDigest } from './canonical-digest.ts';

export const MEMORY_RECORD_SCHEMA = 'ns.memory_record.v1';

const CLASSIFICATIONS = new Set(['public', 'internal', 'confidential', 'restricted']);
const TOMBSTONE_REASONS = new Set(['erased', 'retention_expired']);
const DIGEST = /^[A-Za-z0-9_-]{43}$/;
const DAY_MS = 24 * 3600 * 1000;
/** members that carry content or bind to it: a tombstone has none of them */
const CONTENT_MEMBERS = ['content', 'content_salt', 'content_digest', 'content_bytes'];

export interface VerifyMemoryRecordOptions {
  /** the content served beside the record (its `content`), with its salt (`content_salt`) */
  content?: unknown;
  contentSalt?: unknown;
  /** for a tombstone: the signed record it ends */
  record?: unknown;
}

/** base64url SHA-256 of a signed memory document's RFC 8785 text, signature included (`record_digest`, chain links). */
export function memoryDocumentDigest(doc: unknown): string {
  return canonicalDigest(doc);
}

/** base64url SHA-256 of the RFC 8785 text of `{ content, salt }` (a record's `content_digest`). */
export function memoryContentDigest(content: unknown, salt: string): string {
  return canonicalDigest({ content, salt });
}

const isTombstone = (d: Record<string, unknown>) => d.form === 'tombstone';

const shape: DocumentCheck = (d) => {
  const common: Array<readonly [string, boolean]> = [
    ['/form', d.form === 'record' || d.form === 'tombstone'],
    ['/memory_record_id', isNsId(d.memory_record_id, 'memory_record')],
    ['/issuer', typeof d.issuer === 'string' && d.issuer.length > 0],
    ['/principal_entity_id', isNsId(d.principal_entity_id, 'entity')],
    ['/agent_entity_id', isNsId(d.agent_entity_id, 'entity')],
    ['/classification', typeof d.classification === 'string' && CLASSIFICATIONS.has(d.classification)],
    ['/created_at', isTimestamp(d.created_at)],
  ];
  if (!isTombstone(d)) {
    return requireFields([
      ...common,
      ['/grant_id', isNsId(d.grant_id, 'authority:grant')],
      ['/retention_days', isCount(d.retention_days) && d.retention_days > 0],
      ['/content_digest', typeof d.content_digest === 'string' && DIGEST.test(d.content_digest)],
      ['/content_bytes', isCount(d.content_bytes)],
      ['/authorship', isRecord(d.authorship)],
      ['/retain_until', isTimestamp(d.retain_until)],
    ]);
  }
  return requireFields([
    ...common,
    ['/tombstone_id', isNsId(d.tombstone_id, 'memory_tombstone')],
    ['/record_digest', typeof d.record_digest === 'string' && DIGEST.test(d.record_digest)],
    ['/reason', typeof d.reason === 'string' && TOMBSTONE_REASONS.has(d.reason)],
    ['/sequence', isCount(d.sequence) && d.sequence >= 1],
    [
      '/previous_tombstone_digest',
      d.previous_tombstone_digest === null ||
        (typeof d.previous_tombstone_digest === 'string' && DIGEST.test(d.previous_tombstone_digest)),
    ],
    ['/record_created_at', isTimestamp(d.record_created_at)],
  ]);
};

const retention: DocumentCheck = (d) => {
  if (!isTimestamp(d.created_at) || !isTimestamp(d.retain_until) || !isCount(d.retention_days)) {
    return fail('malformed_document', '/retain_until');
  }
  return Date.parse(d.retain_until) - Date.parse(d.created_at) === d.retention_days * DAY_MS
    ? undefined
    : fail('retention_mismatch', '/retain_until');
};

/** `rfc9421`: the agent's request signature verified at write (its key's thumbprint, its instant); `credential`: not. */
const authorship: DocumentCheck = (d) => {
  const a = d.authorship;
  const method = member(a, 'method');
  const thumbprint = member(a, 'agent_key_thumbprint');
  const signedAt = member(a, 'signed_at');
  if (method !== 'rfc9421' && method !== 'credential') return fail('malformed_document', '/authorship/method');
  if (!isNsId(member(a, 'token_id'), 'token')) return fail('malformed_document', '/authorship/token_id');
  const signed = typeof thumbprint === 'string' && DIGEST.test(thumbprint) && isTimestamp(signedAt);
  const unsigned = thumbprint === null && signedAt === null;
  if (method === 'rfc9421' ? !signed : !unsigned) return fail('authorship_inconsistent', '/authorship');
  return undefined;
};

const tombstone: DocumentCheck = (d) => {
  for (const name of CONTENT_MEMBERS) if (Object.hasOwn(d, name)) return fail('tombstone_has_content', `/${name}`);
  if ((d.sequence === 1) !== (d.previous_tombstone_digest === null)) {
    return fail('chain_broken', '/previous_tombstone_digest');
  }
  if (isTimestamp(d.record_created_at) && isTimestamp(d.created_at) && before(d.created_at, d.record_created_at)) {
    return fail('tombstone_before_record', '/created_at');
  }
  return undefined;
};

function contentCheck(doc: unknown, options: VerifyMemoryRecordOptions): PreviewCheck | undefined {
  const given = options.content !== undefined && options.content !== null;
  try {
    if (!isRecord(doc)) return given ? { check: 'content', valid: false, failure: 'malformed_document' } : undefined;
    if (doc.form === 'tombstone') {
      return given
        ? { check: 'content', valid: false, failure: 'tombstone_has_content', detail: 'content given' }
        : undefined;
    }
    if (!given) return undefined;
    if (typeof options.contentSalt !== 'string' || options.contentSalt.length === 0) {
      return { check: 'content', valid: false, failure: 'content_digest_mismatch', detail: 'no salt' };
    }
    if (memoryContentDigest(options.content, options.contentSalt) !== doc.content_digest) {
      return { check: 'content', valid: false, failure: 'content_digest_mismatch', detail: '/content_digest' };
    }
    const bytes = new TextEncoder().encode(canonicalJson(options.content)).length;
    if (bytes !== doc.content_bytes) {
      return { check: 'content', valid: false, failure: 'content_digest_mismatch', detail: '/content_bytes' };
    }
    return { check: 'content', valid: true };
  } catch {
    return { check: 'content', valid: false, failure: 'malformed_document' };
  }
}

const SAME_AS_RECORD = ['memory_record_id', 'principal_entity_id', 'agent_entity_id', 'classification'] as const;

function recordCheck(doc: unknown, record: unknown): PreviewCheck {
  try {
    if (!isRecord(doc) || doc.form !== 'tombstone') {
      return { check: 'record', valid: false, failure: 'malformed_document', detail: 'not a tombstone' };
    }
    if (member(record, 'form') !== 'record') {
      return { check: 'record', valid: false, failure: 'record_mismatch', detail: 'not a record' };
    }
    if (memoryDocumentDigest(record) !== doc.record_digest) {
      return { check: 'record', valid: false, failure: 'record_mismatch', detail: '/record_digest' };
    }
    for (const name of SAME_AS_RECORD) {
      if (member(record, name) !== doc[name]) {
        return { check: 'record', valid: false, failure: 'record_mismatch', detail: `/${name}` };
      }
    }
    if (member(record, 'created_at') !== doc.record_created_at) {
      return { check: 'record', valid: false, failure: 'record_mismatch', detail: '/record_created_at' };
    }
    return { check: 'record', valid: true };
  } catch {
    return { check: 'record', valid: false, failure: 'malformed_document' };
  }
}

/**
 * Verifies a memory record or tombstone. The record a tombstone ends is only compared, never trusted: verify it too
 * (verifyMemoryRecord on it) when its own signature matters.
 */
export async function verifyMemoryRecord(
  doc: unknown,
  trusted: TrustedKeySource,
  options: VerifyMemoryRecordOptions = {},
): Promise<PreviewVerificationResult> {
  let tombstoneForm = false;
  try {
    tombstoneForm = isRecord(doc) && doc.form === 'tombstone';
  } catch {
    // hostile: the shape check reports it
  }
  const result = await verifyPreviewDocument(
    doc,
    trusted,
    MEMORY_RECORD_SCHEMA,
    tombstoneForm
      ? [
          ['shape', shape],
          ['tombstone', tombstone],
        ]
      : [
          ['shape', shape],
          ['retention', retention],
          ['authorship', authorship],
        ],
  );
  const extra: PreviewCheck[] = [];
  const content = contentCheck(doc, options);
  if (content) extra.push(content);
  if (options.record !== undefined) extra.push(recordCheck(doc, options.record));
  if (extra.length === 0) return result;
  const checks = [...result.checks, ...extra];
  return { ...result, checks, valid: checks.every((c) => c.valid) };
}
