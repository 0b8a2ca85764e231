/**
 * The rows of `rule_packs` and `dictionaries` (migration 0017), which share their shape: one row per (name,
 * version), `document` the draft as given or the published document exactly as signed (RFC 8785 bytes, served as
 * they are), `digest` the `sha-256:` of the published document without its signature.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database, PolicyDocumentState, PolicyOrigin } from '../../store/index.ts';
import { policyId, type PolicyKind } from './policy-ids.ts';

export type DocumentKind = Extract<PolicyKind, 'rule_pack' | 'dictionary'>;
export type DocumentTable = 'rule_packs' | 'dictionaries';

export const TABLE_OF: Readonly<Record<DocumentKind, DocumentTable>> = {
  rule_pack: 'rule_packs',
  dictionary: 'dictionaries',
};

export interface StoredDocumentRow {
  seq: number;
  name: string;
  version: string;
  state: PolicyDocumentState;
  document: string;
  digest: string | null;
  origin: PolicyOrigin;
  created_at: string;
  updated_at: string;
}

type Db = Kysely<Database> | Transaction<Database>;
const COLUMNS = [
  'seq',
  'name',
  'version',
  'state',
  'document',
  'digest',
  'origin',
  'created_at',
  'updated_at',
] as const;

/** Kysely cannot type a query over a union of tables; the columns read are common to both. */
const table = (kind: DocumentKind) => TABLE_OF[kind] as 'dictionaries';

export async function readVersion(
  db: Db,
  kind: DocumentKind,
  name: string,
  version: string,
): Promise<StoredDocumentRow | undefined> {
  const row = await db
    .selectFrom(table(kind))
    .select([...COLUMNS])
    .where('name', '=', name)
    .where('version', '=', version)
    .executeTakeFirst();
  return row ? { ...row, seq: Number(row.seq) } : undefined;
}

/** Every version of one name, oldest first. */
export async function readVersions(db: Db, kind: DocumentKind, name: string): Promise<StoredDocumentRow[]> {
  const rows = await db
    .selectFrom(table(kind))
    .select([...COLUMNS])
    .where('name', '=', name)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/** A page of rows in storage order, optionally of one state (and, for packs, one domain). */
export async function readPage(
  db: Db,
  kind: DocumentKind,
  filter: { afterSeq: number; limit: number; state?: PolicyDocumentState; domain?: string },
): Promise<StoredDocumentRow[]> {
  let query = db
    .selectFrom(table(kind))
    .select([...COLUMNS])
    .where('seq', '>', filter.afterSeq);
  if (filter.state) query = query.where('state', '=', filter.state);
  if (filter.domain && kind === 'rule_pack') {
    query = (query as unknown as typeof query).where('domain' as 'name', '=', filter.domain);
  }
  const rows = await query.orderBy('seq').limit(filter.limit).execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

export interface NewDocumentRow {
  name: string;
  version: string;
  domain?: 'purchase' | 'generic';
  state: PolicyDocumentState;
  document: string;
  digest: string | null;
  origin: PolicyOrigin;
  at: string;
}

export async function insertDocumentRow(
  trx: Transaction<Database>,
  kind: DocumentKind,
  row: NewDocumentRow,
): Promise<void> {
  const common = {
    name: row.name,
    version: row.version,
    state: row.state,
    document: row.document,
    digest: row.digest,
    origin: row.origin,
    created_at: row.at,
    updated_at: row.at,
  };
  if (kind === 'rule_pack') {
    await trx
      .insertInto('rule_packs')
      .values({ ...common, pack_id: policyId('rule_pack', row.name), domain: row.domain ?? 'purchase' })
      .execute();
  } else {
    await trx
      .insertInto('dictionaries')
      .values({ ...common, dictionary_id: policyId('dictionary', row.name) })
      .execute();
  }
}

/** Moves a row on (the database's guard holds it to the transitions of migration 0017). */
export async function updateDocumentRow(
  trx: Transaction<Database>,
  kind: DocumentKind,
  name: string,
  version: string,
  change: { state: PolicyDocumentState; document?: string; digest?: string | null; domain?: string; at: string },
): Promise<void> {
  const values: Record<string, unknown> = { state: change.state, updated_at: change.at };
  if (change.document !== undefined) values.document = change.document;
  if (change.digest !== undefined) values.digest = change.digest;
  if (change.domain !== undefined && kind === 'rule_pack') values.domain = change.domain;
  await trx
    .updateTable(table(kind))
    .set(values as never)
    .where('name', '=', name)
    .where('version', '=', version)
    .execute();
}
