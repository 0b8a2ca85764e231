/**
 * Is a stored published rule pack or dictionary what the service signed? A document is signed by the service when
 * it is PUBLISHED (publish-document.ts, seed-policy-content.ts) and stored as those exact RFC 8785 bytes; whoever
 * uses or serves it checks the stored bytes first.
 * Attacker assumption: someone with write access to the database but not the service key edits a published pack
 * (a rule loosened, a test removed, another version's document swapped in). The edit no longer verifies, or its
 * digest, id or version is not the row's; the service then refuses to use or serve it (503 `audit_unavailable`,
 * fail closed, like services/authorize/chained-state.ts) rather than trust what the database says today.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, policyDocumentDigest, signDocument, verifyDocument, type Jwks } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { integrityFailure } from '../authorize/chained-state.ts';
import { policyId, type PolicyKind } from './policy-ids.ts';
import { TABLE_OF, type DocumentKind, type StoredDocumentRow } from './stored-documents.ts';

const ID_MEMBER: Readonly<Record<PolicyKind, string>> = {
  rule_pack: 'pack_id',
  dictionary: 'dictionary_id',
  sector_pack: 'sector_pack_id',
};

export interface SignedPolicyDocument {
  document: Record<string, unknown>;
  /** the RFC 8785 bytes stored and served */
  text: string;
  /** `sha-256:` of the document without `signature` */
  digest: string;
}

/** Signs `doc` (any signature it carries is replaced) with the instance's current key. */
export async function signPolicyDocument(ctx: AppContext, doc: Record<string, unknown>): Promise<SignedPolicyDocument> {
  const { signature: _dropped, ...unsigned } = doc;
  const signed = (await signDocument(unsigned, ctx.keys.current())) as Record<string, unknown>;
  return { document: signed, text: canonicalJson(signed), digest: policyDocumentDigest(signed) };
}

/** The JSON object of a stored text, or undefined. */
export function parseDocument(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a published (or retired) row is not what was signed: the column at fault, or undefined. Pure but for the
 * signature check; shared by readers and `GET /v1/audit/verify` (audit/record-checks/check-policy-documents.ts).
 */
export async function storedDocumentProblem(
  kind: DocumentKind | 'sector_pack',
  row: Pick<StoredDocumentRow, 'name' | 'version' | 'document' | 'digest'>,
  jwks: Jwks,
): Promise<'document' | 'digest' | 'name' | 'version' | undefined> {
  const doc = parseDocument(row.document);
  if (!doc || canonicalJson(doc) !== row.document) return 'document';
  if (doc[ID_MEMBER[kind]] !== policyId(kind, row.name)) return 'name';
  if (doc.version !== row.version) return 'version';
  if (row.digest === null || policyDocumentDigest(doc) !== row.digest) return 'digest';
  if (!(await verifyDocument(doc, jwks)).valid) return 'document';
  return undefined;
}

/** Per app, the stored documents (by their bytes and digest) already checked: immutable, so a hit needs no check. */
const checkedByApp = new WeakMap<AppContext, Set<string>>();
const CHECKED_LIMIT = 5_000;

/**
 * The document of a stored row, checked when published or retired (a draft is served as given: it decides nothing).
 * Throws 503 `audit_unavailable` naming the table, `<id>@<version>` and the column when the row is not as signed.
 */
export async function trustedDocument<T = Record<string, unknown>>(
  ctx: AppContext,
  kind: DocumentKind,
  row: Pick<StoredDocumentRow, 'name' | 'version' | 'document' | 'digest' | 'state'>,
  /** the service's keys, read beforehand: inside a write unit (SQLite: its one connection) no other read may wait */
  jwks?: Jwks,
): Promise<T> {
  const where = `${policyId(kind, row.name)}@${row.version}`;
  const doc = parseDocument(row.document);
  if (!doc) throw integrityFailure(TABLE_OF[kind], where, 'document');
  if (row.state === 'draft') return doc as T;
  const checked = checkedByApp.get(ctx) ?? new Set<string>();
  checkedByApp.set(ctx, checked);
  const key = createHash('sha256')
    .update(`${kind}\n${row.name}\n${row.version}\n${row.digest ?? '-'}\n`)
    .update(row.document)
    .digest('base64url');
  if (checked.has(key)) return doc as T;
  const problem = await storedDocumentProblem(kind, row, jwks ?? ((await ctx.keys.jwks()) as Jwks));
  if (problem) throw integrityFailure(TABLE_OF[kind], where, problem);
  if (checked.size >= CHECKED_LIMIT) checked.clear();
  checked.add(key);
  return doc as T;
}
