/**
 * Reading memory (CONTRACT section 22): one record, verified on every read; a principal's records, a page at a time;
 * a principal's tombstone chain. Who may read (the routes also require the `memory.read` scope):
 * - a `principal` credential: its own principal's records only; another principal's record is 404, exactly as one
 *   that does not exist (existence is not disclosed);
 * - `runtime` (the agent platform), `auditor` and `admin`: any principal's.
 * Attacker assumption for the verification: someone with SQL access may have rewritten the stored content or record
 * row. A read recomputes the content's salted digest and checks the record's signature against the service's JWKS;
 * content that does not match is withheld (null) and the answer says `tampered`.
 */
import { AarError, parseEntityId, verifyDocument } from '@aar/core';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import type { MemoryClassification, MemoryRecordsTable } from '../../store/schema-memory.ts';
import { contentDigest } from './memory-content.ts';
import type { MemoryRecordDocument, MemoryTombstoneDocument } from './memory-documents.ts';
import { parseMemoryId } from './memory-ids.ts';
import { memoryRecordView, type MemoryRecordView, type MemoryVerification } from './memory-view.ts';
import { RETENTION_DAYS } from './retention.ts';
import { verifyTombstoneChain, type ChainVerification } from './tombstone-chain.ts';

/** The principal a credential may read for: its own for a principal credential; any (undefined) for the others. */
function ownPrincipal(credential: Credential): string | undefined {
  if (credential.role === 'principal') {
    if (!credential.principal_entity_id) throw new AarError('forbidden', 'this principal credential is not bound');
    return credential.principal_entity_id;
  }
  return undefined;
}

export async function getMemoryRecord(
  ctx: AppContext,
  credential: Credential,
  rawId: string,
): Promise<MemoryRecordView> {
  const id = parseMemoryId('memory_record', rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('memory_records')
    .selectAll()
    .where('memory_record_id', '=', id)
    .executeTakeFirst();
  const own = ownPrincipal(credential);
  if (!row || (own !== undefined && row.principal_entity_id !== own)) {
    throw new AarError('not_found', `memory record \`${id}\` does not exist`);
  }
  const content = await ctx.store.db
    .selectFrom('memory_contents')
    .select(['content', 'salt'])
    .where('memory_record_id', '=', id)
    .executeTakeFirst();
  const tombstone = row.tombstone_id
    ? await ctx.store.db
        .selectFrom('memory_tombstones')
        .select('tombstone')
        .where('tombstone_id', '=', row.tombstone_id)
        .executeTakeFirst()
    : undefined;
  const view = memoryRecordView(row, row.state === 'active' ? (content ?? null) : null, tombstone?.tombstone ?? null);
  const verification = await verifyRecord(ctx, row, view);
  if (verification.content !== 'intact') {
    view.content = null;
    view.content_salt = null;
  }
  return { ...view, verification };
}

async function verifyRecord(
  ctx: AppContext,
  row: Selectable<MemoryRecordsTable>,
  view: MemoryRecordView,
): Promise<MemoryVerification> {
  const jwks = await ctx.keys.jwks();
  const record: MemoryRecordDocument = view.record;
  const signature = await verifyDocument(record, jwks);
  const matches =
    record.memory_record_id === row.memory_record_id &&
    record.principal_entity_id === row.principal_entity_id &&
    record.agent_entity_id === row.agent_entity_id &&
    record.grant_id === row.grant_id &&
    record.classification === row.classification &&
    record.retention_days === RETENTION_DAYS[row.classification] &&
    record.retain_until === row.retain_until &&
    record.content_digest === row.content_digest;
  let content: MemoryVerification['content'] = 'purged';
  if (row.state === 'active') {
    content =
      view.content !== null &&
      view.content_salt !== null &&
      contentDigest(view.content, view.content_salt) === record.content_digest
        ? 'intact'
        : 'tampered';
  }
  let tombstoneSignature: MemoryVerification['tombstone_signature'] = null;
  if (row.state !== 'active') {
    const t: MemoryTombstoneDocument | null = view.tombstone;
    tombstoneSignature =
      t !== null && t.memory_record_id === row.memory_record_id && (await verifyDocument(t, jwks)).valid
        ? 'valid'
        : 'invalid';
  }
  return {
    valid:
      signature.valid &&
      matches &&
      content !== 'tampered' &&
      (tombstoneSignature === null || tombstoneSignature === 'valid'),
    record_signature: signature.valid ? 'valid' : 'invalid',
    record_matches_row: matches,
    content,
    tombstone_signature: tombstoneSignature,
    key_id: signature.key_id ?? null,
  };
}

export interface ListMemoryQuery {
  principal_entity_id?: string | undefined;
  agent_entity_id?: string | undefined;
  classification?: string | undefined;
  state?: string | undefined;
}

/** Records in write order, newest last, with their content while kept (not verified: GET one record for that). */
export async function listMemoryRecords(
  ctx: AppContext,
  credential: Credential,
  query: ListMemoryQuery,
  page: PageRequest,
): Promise<Page<MemoryRecordView>> {
  const principal = principalFilter(credential, query.principal_entity_id);
  let q = ctx.store.db.selectFrom('memory_records').selectAll().where('seq', '>', page.afterSeq);
  if (principal !== undefined) q = q.where('principal_entity_id', '=', principal);
  if (query.agent_entity_id !== undefined) {
    q = q.where('agent_entity_id', '=', parseEntityId(query.agent_entity_id, '/query/agent_entity_id', ['agent']).id);
  }
  if (query.classification !== undefined)
    q = q.where('classification', '=', query.classification as MemoryClassification);
  if (query.state !== undefined) q = q.where('state', '=', query.state as 'active' | 'erased' | 'purged');
  const rows = await q
    .orderBy('seq')
    .limit(page.limit + 1)
    .execute();
  const ids = rows.map((r) => r.memory_record_id);
  const contents = ids.length
    ? await ctx.store.db.selectFrom('memory_contents').selectAll().where('memory_record_id', 'in', ids).execute()
    : [];
  const tombstoneIds = rows.flatMap((r) => (r.tombstone_id ? [r.tombstone_id] : []));
  const tombstones = tombstoneIds.length
    ? await ctx.store.db
        .selectFrom('memory_tombstones')
        .select(['tombstone_id', 'tombstone'])
        .where('tombstone_id', 'in', tombstoneIds)
        .execute()
    : [];
  const contentOf = new Map(contents.map((c) => [c.memory_record_id, c]));
  const tombstoneOf = new Map(tombstones.map((t) => [t.tombstone_id, t.tombstone]));
  return toPage(rows, page.limit, (row) =>
    memoryRecordView(
      row,
      row.state === 'active' ? (contentOf.get(row.memory_record_id) ?? null) : null,
      row.tombstone_id ? (tombstoneOf.get(row.tombstone_id) ?? null) : null,
    ),
  );
}

/** A principal credential lists its own principal (naming another is 403); others may name any, or none. */
function principalFilter(credential: Credential, asked: string | undefined): string | undefined {
  const parsed =
    asked === undefined ? undefined : parseEntityId(asked, '/query/principal_entity_id', ['person', 'organisation']).id;
  const own = ownPrincipal(credential);
  if (own === undefined) return parsed;
  if (parsed !== undefined && parsed !== own) {
    throw new AarError('forbidden', `this credential may not act for principal \`${parsed}\``);
  }
  return own;
}

/** the longest chain the first page verifies in the service */
export const MAX_VERIFIED_CHAIN = 10_000;

export interface TombstoneChainView {
  principal_entity_id: string;
  items: MemoryTombstoneDocument[];
  next_cursor: string | null;
  /** present on the first page only: the whole chain verified by the service (the SDKs recompute it offline) */
  verification?: ChainVerification;
}

/** A principal's tombstones in chain order, a page at a time; the first page carries the chain's verification. */
export async function listTombstones(
  ctx: AppContext,
  credential: Credential,
  principalId: string | undefined,
  page: PageRequest,
): Promise<TombstoneChainView> {
  const principal = principalFilter(credential, principalId);
  if (principal === undefined) {
    throw new AarError('invalid_request', '/query/principal_entity_id: is required for this credential', {
      errors: [{ path: '/query/principal_entity_id', message: 'is required for this credential' }],
    });
  }
  const rows = await ctx.store.db
    .selectFrom('memory_tombstones')
    .select(['seq', 'tombstone'])
    .where('principal_entity_id', '=', principal)
    .where('seq', '>', page.afterSeq)
    .orderBy('seq') // the chain's order: a tombstone is inserted only after the one before it committed
    .limit(page.limit + 1)
    .execute();
  const shown = toPage(rows, page.limit, (r) => JSON.parse(r.tombstone) as MemoryTombstoneDocument);
  if (page.afterSeq !== 0) return { principal_entity_id: principal, ...shown };
  const all = await ctx.store.db
    .selectFrom('memory_tombstones')
    .select('tombstone')
    .where('principal_entity_id', '=', principal)
    .orderBy('sequence')
    .limit(MAX_VERIFIED_CHAIN + 1)
    .execute();
  // bounded work per request: a longer chain is verified offline by the SDKs, page by page
  if (all.length > MAX_VERIFIED_CHAIN) return { principal_entity_id: principal, ...shown };
  const verification = await verifyTombstoneChain(
    principal,
    all.map((r) => JSON.parse(r.tombstone) as unknown),
    await ctx.keys.jwks(),
  );
  return { principal_entity_id: principal, ...shown, verification };
}
