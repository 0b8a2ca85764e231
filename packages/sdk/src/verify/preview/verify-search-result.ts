/**
 * A signed search result (`ns.search_result.v1`, docs/search.md), offline: its signature by a key of the caller's
 * JWKS, then what it commits to:
 * - `shape`: ids, roles and timestamps of their forms;
 * - `request`: `request_digest` is `sha-256:` + base64url SHA-256 of the RFC 8785 bytes of `request`;
 * - `results`: `results_digest` likewise over `results`; each kind counted once in `counts`, its `returned` the
 *   number of results of that kind, the results grouped in the order of `counts`;
 * - and, when the caller passes the items it was answered (`items`, in the order of `results`), `items`: each item's
 *   digest and kind and id are its result entry's, so the agent proves it was shown exactly these.
 */
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { canonicalDigest } from './canonical-digest.ts';
import { isCount, isNsId, isTimestamp, member, requireFields } from './document-fields.ts';
import {
  fail,
  isRecord,
  verifyPreviewDocument,
  type DocumentCheck,
  type PreviewCheck,
  type PreviewVerificationResult,
} from './preview-verification.ts';

export const SEARCH_RESULT_SCHEMA = 'ns.search_result.v1';

const KINDS = new Set(['decisions', 'evidence_packs', 'memory_records', 'listings']);
const ROLES = new Set(['admin', 'runtime', 'principal', 'auditor', 'pep']);
const nullableEntity = (v: unknown) => v === null || isNsId(v, 'entity');

export interface VerifySearchResultOptions {
  /** the items the search answered, `{ kind, id, item }` in the order of `results` (POST /v1/search's `items`) */
  items?: unknown;
}

const shape: DocumentCheck = (d) =>
  requireFields([
    ['/search_result_id', isNsId(d.search_result_id, 'search_result')],
    ['/preview', d.preview === true],
    ['/issuer', typeof d.issuer === 'string' && d.issuer.length > 0],
    ['/searched_at', isTimestamp(d.searched_at)],
    ['/searched_by', isRecord(d.searched_by)],
    ['/searched_by/token_id', typeof member(d.searched_by, 'token_id') === 'string'],
    ['/searched_by/role', ROLES.has(member(d.searched_by, 'role') as string)],
    ['/searched_by/principal_entity_id', nullableEntity(member(d.searched_by, 'principal_entity_id'))],
    ['/searched_by/agent_entity_id', nullableEntity(member(d.searched_by, 'agent_entity_id'))],
    ['/request', isRecord(d.request)],
    ['/visibility/principal_entity_id', nullableEntity(member(d.visibility, 'principal_entity_id'))],
    ['/visibility/agent_entity_id', nullableEntity(member(d.visibility, 'agent_entity_id'))],
    ['/counts', Array.isArray(d.counts)],
    ['/results', Array.isArray(d.results)],
  ]);

const request: DocumentCheck = (d) =>
  d.request_digest === `sha-256:${canonicalDigest(d.request)}` ? undefined : fail('digest_mismatch', '/request_digest');

const results: DocumentCheck = (d) => {
  if (d.results_digest !== `sha-256:${canonicalDigest(d.results)}`) return fail('digest_mismatch', '/results_digest');
  const list = d.results;
  const counts = d.counts;
  if (!Array.isArray(list) || !Array.isArray(counts)) return fail('malformed_document', '/results');
  const order: string[] = [];
  for (const [i, c] of counts.entries()) {
    const kind = member(c, 'kind');
    if (typeof kind !== 'string' || !KINDS.has(kind) || order.includes(kind)) {
      return fail('counts_mismatch', `/counts/${i}/kind`);
    }
    if (!isCount(member(c, 'returned')) || typeof member(c, 'more') !== 'boolean') {
      return fail('malformed_document', `/counts/${i}`);
    }
    order.push(kind);
  }
  // results come kind by kind, in the order of `counts`, each kind's run as long as its `returned`
  let at = 0;
  for (const [k, kind] of order.entries()) {
    const returned = member(counts[k], 'returned') as number;
    for (let n = 0; n < returned; n++, at++) {
      const entry: unknown = list[at];
      if (member(entry, 'kind') !== kind) return fail('counts_mismatch', `/results/${at}/kind`);
      if (
        typeof member(entry, 'id') !== 'string' ||
        !/^sha-256:[A-Za-z0-9_-]{43}$/.test(String(member(entry, 'digest')))
      ) {
        return fail('malformed_document', `/results/${at}`);
      }
    }
  }
  return at === list.length ? undefined : fail('counts_mismatch', '/results');
};

function itemsCheck(doc: unknown, items: unknown): PreviewCheck {
  try {
    const list = member(doc, 'results');
    if (!Array.isArray(list) || !Array.isArray(items)) {
      return { check: 'items', valid: false, failure: 'malformed_document', detail: '/items' };
    }
    if (items.length !== list.length)
      return { check: 'items', valid: false, failure: 'items_mismatch', detail: '/items' };
    for (const [i, entry] of list.entries()) {
      const item: unknown = items[i];
      if (member(item, 'kind') !== member(entry, 'kind') || member(item, 'id') !== member(entry, 'id')) {
        return { check: 'items', valid: false, failure: 'items_mismatch', detail: `/items/${i}` };
      }
      if (`sha-256:${canonicalDigest(member(item, 'item'))}` !== member(entry, 'digest')) {
        return { check: 'items', valid: false, failure: 'items_mismatch', detail: `/items/${i}/item` };
      }
    }
    return { check: 'items', valid: true };
  } catch {
    return { check: 'items', valid: false, failure: 'malformed_document' };
  }
}

export async function verifySearchResult(
  result: unknown,
  trusted: TrustedKeySource,
  options: VerifySearchResultOptions = {},
): Promise<PreviewVerificationResult> {
  const verified = await verifyPreviewDocument(result, trusted, SEARCH_RESULT_SCHEMA, [
    ['shape', shape],
    ['request', request],
    ['results', results],
  ]);
  if (options.items === undefined) return verified;
  const checks = [...verified.checks, itemsCheck(result, options.items)];
  return { ...verified, checks, valid: checks.every((c) => c.valid) };
}
