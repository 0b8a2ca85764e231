/** What lists show of a stored rule pack or dictionary version (the document itself is served by its own GET). */
import type { DocumentKind, StoredDocumentRow } from './stored-documents.ts';
import { parseDocument } from './document-integrity.ts';
import { policyId } from './policy-ids.ts';

export interface DocumentSummary {
  /** `ns:rule_pack:<name>` or `ns:dictionary:<name>` */
  id: string;
  name: string;
  version: string;
  title: string;
  /** rule packs only */
  domain?: 'purchase' | 'generic';
  state: StoredDocumentRow['state'];
  origin: StoredDocumentRow['origin'];
  /** null for a draft */
  digest: string | null;
  created_at: string;
  updated_at: string;
}

export function summaryOf(kind: DocumentKind, row: StoredDocumentRow): DocumentSummary {
  const doc = parseDocument(row.document) ?? {};
  return {
    id: policyId(kind, row.name),
    name: row.name,
    version: row.version,
    title: typeof doc.title === 'string' ? doc.title : '',
    ...(kind === 'rule_pack'
      ? { domain: doc.domain === 'generic' ? ('generic' as const) : ('purchase' as const) }
      : {}),
    state: row.state,
    origin: row.origin,
    digest: row.digest,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
