/**
 * Governed agent memory (migration 0026, services/memory, docs/memory.md) against its signatures and its chained
 * events. Attacker assumption: SQL write access without the service key, the guards dropped: rewrite or delete a
 * record, its content or a tombstone, move a record to another principal, agent or grant, stretch its retention,
 * revive an erased record, or cut a tombstone out of its principal's chain.
 * - `memory_records`: `record` is RFC 8785 text whose signature verifies with the service's keys, `record_digest` is
 *   its SHA-256 and every restated column equals the signed member; the row is backed by its `ns.memory.written`
 *   event (whose envelope check-events.ts holds to its entry) naming the same record and content digests; its
 *   `state`/`tombstone_id` are those its `ns.memory.erased`/`.purged` event says (none: `active`, null); an active
 *   record has its content row.
 * - `memory_contents`: names an active record, is RFC 8785 text, and `{ content, salt }` hashes to the record's
 *   `content_digest` (salted canonical JSON, memory-content.ts).
 * - `memory_tombstones`: `tombstone` verifies and is what `tombstone_digest` digests, its columns restate it, it links
 *   to its predecessor's digest (`sequence` 1: none), and its erased/purged event (by `reason`) names the same ids
 *   and digests.
 * - every `ns.memory.written` event has its record row, every erased/purged event its tombstone (a deletion is found).
 * Findings name the entry of the record's (or tombstone's) event. Every run checks every row, a page at a time.
 */
import { canonicalJson, verifyDocument, type Jwks } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { MemoryRecordsTable, MemoryTombstonesTable } from '../../store/schema-memory.ts';
import { canonicalDocument } from './canonical-document.ts';
import { contentDigest, textDigest } from '../../services/memory/memory-content.ts';
import { entriesById, existsBeyond, type AnchorEntry } from './entries-by-id.ts';
import { failMissingRow } from './missing-row.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';

const WRITTEN = 'ns.memory.written';
const ERASED = 'ns.memory.erased';
const PURGED = 'ns.memory.purged';
const TYPES = [WRITTEN, ERASED, PURGED];

interface Envelope {
  audit_ref?: unknown;
  subject_ref?: unknown;
  principal_entity_id?: unknown;
  data?: Record<string, unknown>;
}

type Problem = { reason: RecordFailureReason; detail: string } | undefined;
type RecordRow = Selectable<MemoryRecordsTable>;
type TombstoneRow = Selectable<MemoryTombstonesTable>;

export async function checkMemory(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  await checkRecords(db, findings, jwks, pageSize);
  await checkContents(db, findings, pageSize);
  await checkTombstones(db, findings, jwks, pageSize);
  await checkEvents(db, findings, pageSize);
}

/** The memory events of `ids` by subject and type (an unreadable envelope is check-events.ts's finding: skipped). */
async function eventsOf(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, Map<string, Envelope>>> {
  const out = new Map<string, Map<string, Envelope>>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('events')
    .select(['subject_ref', 'event_type', 'envelope'])
    .where('event_type', 'in', TYPES)
    .where('subject_ref', 'in', [...new Set(ids)])
    .execute();
  for (const event of rows) {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(event.envelope) as Envelope;
    } catch {
      continue;
    }
    const mine = out.get(event.subject_ref) ?? new Map<string, Envelope>();
    mine.set(event.event_type, envelope);
    out.set(event.subject_ref, mine);
  }
  return out;
}

/** The entries of the given events of a page (by type), keyed by audit id. */
async function entriesOf(
  db: Kysely<Database>,
  events: Map<string, Map<string, Envelope>>,
  type: (mine: Map<string, Envelope>) => Envelope | undefined,
  size: number,
): Promise<Map<string, AnchorEntry>> {
  const refs = [...events.values()].map((m) => String(type(m)?.audit_ref ?? ''));
  return entriesById(db, refs, size);
}

const endOf = (mine: Map<string, Envelope>): Envelope | undefined => mine.get(ERASED) ?? mine.get(PURGED);

async function checkRecords(db: Kysely<Database>, findings: RecordFindings, jwks: Jwks, pageSize: number) {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('memory_records')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const ids = rows.map((r) => r.memory_record_id);
    const events = await eventsOf(db, ids);
    const entries = await entriesOf(db, events, (m) => m.get(WRITTEN), findings.size);
    const withContent = new Set(
      (
        await db.selectFrom('memory_contents').select('memory_record_id').where('memory_record_id', 'in', ids).execute()
      ).map((c) => c.memory_record_id),
    );
    await Promise.all(
      rows.map(async (row) => {
        const record = { table: 'memory_records', id: row.memory_record_id };
        const mine = events.get(row.memory_record_id) ?? new Map<string, Envelope>();
        const auditRef = String(mine.get(WRITTEN)?.audit_ref ?? '');
        const entry = entries.get(auditRef);
        if (!entry) {
          if (mine.has(WRITTEN) && (await existsBeyond(db, auditRef, findings.size))) return;
          findings.fail({ reason: 'record_unanchored', record, detail: 'memory_record_id' });
          return;
        }
        const problem = await recordProblem(row, mine, withContent.has(row.memory_record_id), jwks);
        if (problem) findings.fail({ ...problem, index: entry.index, record });
      }),
    );
  }
}

async function recordProblem(row: RecordRow, events: Map<string, Envelope>, hasContent: boolean, jwks: Jwks) {
  const doc = canonicalDocument(row.record);
  if (!doc || doc.form !== 'record') return { reason: 'record_digest_mismatch', detail: 'record' } as const;
  if (textDigest(row.record) !== row.record_digest) {
    return { reason: 'record_digest_mismatch', detail: 'record_digest' } as const;
  }
  if (!(await verifyDocument(doc, jwks)).valid)
    return { reason: 'record_signature_invalid', detail: 'record' } as const;
  const restated = [
    'memory_record_id',
    'principal_entity_id',
    'agent_entity_id',
    'grant_id',
    'classification',
    'content_digest',
    'retain_until',
    'created_at',
  ] as const;
  for (const column of restated) {
    if (row[column] !== doc[column]) return { reason: 'record_mismatch', detail: column } as const;
  }
  const written = events.get(WRITTEN)!;
  if (written.data?.record_digest !== row.record_digest) {
    return { reason: 'record_digest_mismatch', detail: 'record_digest' } as const;
  }
  if (written.principal_entity_id !== row.principal_entity_id) {
    return { reason: 'record_mismatch', detail: 'principal_entity_id' } as const;
  }
  for (const column of ['memory_record_id', 'agent_entity_id', 'grant_id', 'classification'] as const) {
    if (written.data?.[column] !== row[column]) return { reason: 'record_mismatch', detail: column } as const;
  }
  if (written.data?.content_digest !== row.content_digest) {
    return { reason: 'record_digest_mismatch', detail: 'content_digest' } as const;
  }
  if (written.data?.retain_until !== row.retain_until) {
    return { reason: 'record_mismatch', detail: 'retain_until' } as const;
  }
  return stateProblem(row, events, hasContent);
}

/** The record's state is what its events say: ended by exactly the one erased/purged event, else active with content. */
function stateProblem(row: RecordRow, events: Map<string, Envelope>, hasContent: boolean): Problem {
  if (events.has(ERASED) && events.has(PURGED)) return { reason: 'record_mismatch', detail: 'state' };
  const end = endOf(events);
  const state = !end ? 'active' : events.has(ERASED) ? 'erased' : 'purged';
  if (row.state !== state) return { reason: 'record_mismatch', detail: 'state' };
  if (row.tombstone_id !== (end ? end.data?.tombstone_id : null)) {
    return { reason: 'record_mismatch', detail: 'tombstone_id' };
  }
  if (end && end.data?.record_digest !== row.record_digest) {
    return { reason: 'record_digest_mismatch', detail: 'record_digest' };
  }
  if (state === 'active' && !hasContent) return { reason: 'record_missing', detail: 'memory_contents' };
  return undefined;
}

/** Each content row: of an active record, canonical, and hashing with its salt to the record's `content_digest`. */
async function checkContents(db: Kysely<Database>, findings: RecordFindings, pageSize: number) {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('memory_contents')
      .selectAll()
      .where('memory_record_id', '>', after)
      .orderBy('memory_record_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.memory_record_id;
    const ids = rows.map((r) => r.memory_record_id);
    const owners = new Map(
      (
        await db
          .selectFrom('memory_records')
          .select(['memory_record_id', 'state', 'content_digest'])
          .where('memory_record_id', 'in', ids)
          .execute()
      ).map((r) => [r.memory_record_id, r]),
    );
    const events = await eventsOf(db, ids);
    const entries = await entriesOf(db, events, (m) => m.get(WRITTEN), findings.size);
    for (const row of rows) {
      const record = { table: 'memory_contents', id: row.memory_record_id };
      const owner = owners.get(row.memory_record_id);
      const index = entries.get(String(events.get(row.memory_record_id)?.get(WRITTEN)?.audit_ref ?? ''))?.index;
      const at = index === undefined ? {} : { index };
      if (!owner || owner.state !== 'active') {
        findings.fail({ reason: 'record_mismatch', ...at, record, detail: 'memory_record_id' });
        continue;
      }
      let content: unknown;
      try {
        content = JSON.parse(row.content);
      } catch {
        content = undefined;
      }
      // the stored text is what is served: the content's own RFC 8785 text, the one the salted digest covers
      const intact =
        content !== undefined &&
        canonicalJson(content) === row.content &&
        contentDigest(content, row.salt) === owner.content_digest;
      if (!intact) findings.fail({ reason: 'record_digest_mismatch', ...at, record, detail: 'content' });
    }
  }
}

/** Each tombstone: signed, digested, restated, linked to its predecessor, and named by its erased/purged event. */
async function checkTombstones(db: Kysely<Database>, findings: RecordFindings, jwks: Jwks, pageSize: number) {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('memory_tombstones')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const events = await eventsOf(
      db,
      rows.map((r) => r.memory_record_id),
    );
    const entries = await entriesOf(db, events, endOf, findings.size);
    await Promise.all(
      rows.map(async (row) => {
        const record = { table: 'memory_tombstones', id: row.tombstone_id };
        const end = endOf(events.get(row.memory_record_id) ?? new Map<string, Envelope>());
        const auditRef = String(end?.audit_ref ?? '');
        const entry = entries.get(auditRef);
        if (!entry) {
          if (end && (await existsBeyond(db, auditRef, findings.size))) return;
          findings.fail({ reason: 'record_unanchored', record, detail: 'memory_record_id' });
          return;
        }
        const problem = await tombstoneProblem(db, row, events.get(row.memory_record_id)!, jwks);
        if (problem) findings.fail({ ...problem, index: entry.index, record });
      }),
    );
  }
}

async function tombstoneProblem(
  db: Kysely<Database>,
  row: TombstoneRow,
  events: Map<string, Envelope>,
  jwks: Jwks,
): Promise<Problem> {
  const doc = canonicalDocument(row.tombstone);
  if (!doc || doc.form !== 'tombstone') return { reason: 'record_digest_mismatch', detail: 'tombstone' };
  if (textDigest(row.tombstone) !== row.tombstone_digest) {
    return { reason: 'record_digest_mismatch', detail: 'tombstone_digest' };
  }
  if (!(await verifyDocument(doc, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'tombstone' };
  const restated = [
    'tombstone_id',
    'memory_record_id',
    'principal_entity_id',
    'reason',
    'previous_tombstone_digest',
    'created_at',
  ] as const;
  for (const column of restated) {
    if (row[column] !== doc[column]) return { reason: 'record_mismatch', detail: column };
  }
  if (Number(row.sequence) !== doc.sequence) return { reason: 'record_mismatch', detail: 'sequence' };
  // the event of its reason, and only that one, names it with the same digests
  const type = row.reason === 'erased' ? ERASED : PURGED;
  const event = events.get(type);
  if (!event || events.has(type === ERASED ? PURGED : ERASED)) return { reason: 'record_mismatch', detail: 'reason' };
  if (event.data?.tombstone_digest !== row.tombstone_digest) {
    return { reason: 'record_digest_mismatch', detail: 'tombstone_digest' };
  }
  if (event.data?.record_digest !== doc.record_digest) return { reason: 'record_digest_mismatch', detail: 'tombstone' };
  if (event.principal_entity_id !== row.principal_entity_id) {
    return { reason: 'record_mismatch', detail: 'principal_entity_id' };
  }
  const named: Array<[keyof TombstoneRow, unknown, unknown]> = [
    ['tombstone_id', row.tombstone_id, event.data?.tombstone_id],
    ['memory_record_id', row.memory_record_id, event.data?.memory_record_id],
    ['sequence', Number(row.sequence), event.data?.sequence],
    ['previous_tombstone_digest', row.previous_tombstone_digest, event.data?.previous_tombstone_digest],
  ];
  for (const [column, actual, chained] of named) {
    if (actual !== chained) return { reason: 'record_mismatch', detail: column };
  }
  // the link: the principal's tombstone one before has the digest this one names (the first names none)
  if (Number(row.sequence) > 1) {
    const before = await db
      .selectFrom('memory_tombstones')
      .select('tombstone_digest')
      .where('principal_entity_id', '=', row.principal_entity_id)
      .where('sequence', '=', Number(row.sequence) - 1)
      .executeTakeFirst();
    if (before?.tombstone_digest !== row.previous_tombstone_digest) {
      return { reason: 'record_mismatch', detail: 'previous_tombstone_digest' };
    }
  } else if (row.previous_tombstone_digest !== null) {
    return { reason: 'record_mismatch', detail: 'previous_tombstone_digest' };
  }
  return undefined;
}

/** Every memory event has its row: a written record its record, an ended one its tombstone (a deletion is found). */
async function checkEvents(db: Kysely<Database>, findings: RecordFindings, pageSize: number) {
  let after = 0;
  for (;;) {
    const events = await db
      .selectFrom('events')
      .select(['seq', 'event_type', 'subject_ref', 'envelope'])
      .where('event_type', 'in', TYPES)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (events.length === 0) return;
    after = Number(events[events.length - 1]!.seq);
    const ids = [...new Set(events.map((e) => e.subject_ref))];
    const records = new Set(
      (
        await db.selectFrom('memory_records').select('memory_record_id').where('memory_record_id', 'in', ids).execute()
      ).map((r) => r.memory_record_id),
    );
    const tombstones = new Set(
      (
        await db
          .selectFrom('memory_tombstones')
          .select('memory_record_id')
          .where('memory_record_id', 'in', ids)
          .execute()
      ).map((r) => r.memory_record_id),
    );
    for (const event of events) {
      const written = event.event_type === WRITTEN;
      if ((written ? records : tombstones).has(event.subject_ref)) continue;
      await failMissingRow(
        db,
        findings,
        event.envelope,
        { table: written ? 'memory_records' : 'memory_tombstones', id: event.subject_ref },
        'memory_record_id',
      );
    }
  }
}
