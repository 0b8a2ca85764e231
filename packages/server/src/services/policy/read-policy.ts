/**
 * The reads of the policy API: lists and versions of rule packs and dictionaries, one version's document exactly as
 * stored (a published one only after its bytes are checked: document-integrity.ts), a dictionary term, activations.
 */
import { AarError, type DictionaryDocument, type DictionaryTerm } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { PolicyDocumentState } from '../../store/index.ts';
import { ACTIVATION_COLUMNS, activationView, type ActivationView } from './activation-view.ts';
import { trustedDocument } from './document-integrity.ts';
import { summaryOf, type DocumentSummary } from './document-summary.ts';
import { readPage, readVersion, readVersions, type DocumentKind, type StoredDocumentRow } from './stored-documents.ts';

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export async function listDocuments(
  ctx: AppContext,
  kind: DocumentKind,
  filter: { afterSeq: number; limit: number; state?: PolicyDocumentState; domain?: string },
): Promise<{ items: DocumentSummary[]; lastSeq: number | null; full: boolean }> {
  const rows = await readPage(ctx.store.db, kind, filter);
  return {
    items: rows.map((r) => summaryOf(kind, r)),
    lastSeq: rows.length > 0 ? rows[rows.length - 1]!.seq : null,
    full: rows.length === filter.limit,
  };
}

export async function documentVersions(
  ctx: AppContext,
  kind: DocumentKind,
  name: string,
): Promise<{ id: string; name: string; versions: DocumentSummary[] }> {
  const rows = await readVersions(ctx.store.db, kind, name);
  if (rows.length === 0) throw new AarError('not_found', `${kind.replace('_', ' ')} \`${name}\` does not exist`);
  const versions = rows.map((r) => summaryOf(kind, r));
  return { id: versions[0]!.id, name, versions };
}

/** The stored row, its document checked when published or retired (503 `audit_unavailable` when edited). */
export async function documentVersion(
  ctx: AppContext,
  kind: DocumentKind,
  name: string,
  version: string,
): Promise<StoredDocumentRow> {
  const row = await readVersion(ctx.store.db, kind, name, version);
  if (!row) throw new AarError('not_found', `${kind.replace('_', ' ')} \`${name}@${version}\` does not exist`);
  await trustedDocument(ctx, kind, row);
  return row;
}

/** The latest published version of a dictionary (by publication order), or a given one. */
export async function dictionaryTerm(
  ctx: AppContext,
  name: string,
  code: string,
  version?: string,
): Promise<{ dictionary_id: string; version: string; term: DictionaryTerm }> {
  const rows = version
    ? [await readVersion(ctx.store.db, 'dictionary', name, version)].filter((r) => r !== undefined)
    : (await readVersions(ctx.store.db, 'dictionary', name)).filter((r) => r.state === 'published');
  const row = rows[rows.length - 1];
  if (!row)
    throw new AarError('not_found', `dictionary \`${name}\`${version ? `@${version}` : ''} has no published version`);
  const doc = await trustedDocument<DictionaryDocument>(ctx, 'dictionary', row);
  const term = (doc.terms ?? []).find((t) => t.code === code);
  if (!term) throw new AarError('not_found', `dictionary \`${name}@${row.version}\` has no term \`${code}\``);
  return { dictionary_id: doc.dictionary_id, version: doc.version, term: { ...term } };
}

export async function listActivations(
  ctx: AppContext,
  filter: {
    afterSeq: number;
    limit: number;
    state?: 'active' | 'deactivated';
    principal_entity_id?: string;
    pack?: string;
  },
): Promise<{ items: ActivationView[]; lastSeq: number | null; full: boolean }> {
  let query = ctx.store.db
    .selectFrom('rule_activations')
    .select(['seq', ...ACTIVATION_COLUMNS])
    .where('seq', '>', filter.afterSeq);
  if (filter.state) query = query.where('state', '=', filter.state);
  if (filter.principal_entity_id) {
    query = query.where('target_kind', '=', 'principal').where('target_id', '=', filter.principal_entity_id);
  }
  if (filter.pack) query = query.where('pack_name', '=', filter.pack);
  const rows = await query.orderBy('seq').limit(filter.limit).execute();
  return {
    items: rows.map(activationView),
    lastSeq: rows.length > 0 ? Number(rows[rows.length - 1]!.seq) : null,
    full: rows.length === filter.limit,
  };
}
