/**
 * Write-once means write-once (CONTRACT section 8, issue 8 point 5), on each database. With a store holding every
 * kind of audit-relevant record (decisions allowed, denied and needing approval, an approval decided and consumed,
 * an outcome, events, a revocation cascade, an evidence pack, checkpoints), the database itself refuses, on every
 * guarded table: an UPDATE of a non-state column, an UPDATE of a state column off the service's transitions, DELETE,
 * `INSERT OR REPLACE` (SQLite), `INSERT … ON CONFLICT DO UPDATE`, TRUNCATE (PostgreSQL); nothing changes and
 * `/verify` stays valid. Then, with the guards out of the way (as an attacker with the database would do), an edit of
 * each table is found by `/verify`, naming the entry index, the table and the record.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { GUARDED_TABLES } from '../../src/store/migrations/write-once-guards.ts';
import { decodeDecisionRecord, encodeDecisionRecord } from '../../src/services/decisions/record-codec.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

type Row = Record<string, unknown>;

/** Each guarded table: a key column naming one row, and a non-state column to tamper with. */
const TARGETS: Record<string, { key: string; column: string; value: unknown }> = {
  decisions: { key: 'policy_decision_id', column: 'decision', value: 'allow_with_constraints' },
  approvals: { key: 'approval_id', column: 'bound', value: '{}' },
  events: { key: 'event_id', column: 'subject_ref', value: 'ns:entity:person:mallory' },
  event_operations: { key: 'operation_ref', column: 'template', value: '{}' },
  grant_revocations: { key: 'grant_id', column: 'revoked_at', value: '2000-01-01T00:00:00.000Z' },
  evidence_packs: { key: 'evidence_pack_id', column: 'document', value: '{}' },
  audit_checkpoints: { key: 'size', column: 'root_hash', value: 'AAAA' },
  audit_entries: { key: 'idx', column: 'kind', value: 'ns.forged' },
  audit_nodes: { key: 'idx', column: 'hash', value: 'AAAA' },
  store_meta: { key: 'key', column: 'value', value: 'evil.example/audit' },
  audit_verifications: { key: 'size', column: 'root_hash', value: 'AAAA' },
};

/** JSON.parse reviver for the snapshot's rows: a blob column (decisions.record) went through Buffer's toJSON. */
const reviveBuffer = (_key: string, value: unknown): unknown =>
  typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer'
    ? Buffer.from((value as { data: number[] }).data)
    : value;

describe.each(dialects)('write-once guards on %s', (dialect) => {
  let rt: TestRuntime;
  let ids: { deny: string; allowed: string; approved: string; approval: string; revoked: string; pack: string };

  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    const deny = (await world.authorize(world.purchase(60))).body;
    expect(deny.decision).toBe('deny');
    const allowed = (await world.authorize(world.purchase(20))).body;
    expect(allowed.decision).toBe('allow_with_constraints');
    // the service's own state changes, all under the guards: outcome, approval decided then consumed, pack, revoke
    expect(
      (
        await world.call(
          'POST',
          '/v1/runtime/outcomes',
          {
            policy_decision_id: allowed.policy_decision_id,
            outcome: 'executed',
          },
          world.runtimeToken,
        )
      ).status,
    ).toBe(200);
    const asked = (await world.authorize(world.purchase(45))).body;
    expect(asked.decision).toBe('require_approval');
    const approval = asked.approval.approval_id as string;
    expect(
      (await world.call('POST', `/v1/approvals/${approval}/decision`, { approve: true }, world.principalToken)).status,
    ).toBe(200);
    const approved = (await world.authorize(world.purchase(45, { policy_decision_id: asked.policy_decision_id }))).body;
    expect(approved.reason).toBe('approved_by_principal');
    const pack = deny.evidence_refs[0] as string;
    expect((await world.call('GET', `/v1/evidence-packs/${pack}`, undefined, world.runtimeToken)).status).toBe(200);
    expect((await world.call('POST', `/v1/grants/${world.grant.grant_id}/revoke`)).status).toBe(200);
    expect((await world.call('POST', '/v1/audit/checkpoint')).status).toBeLessThan(300);
    ids = {
      deny: deny.policy_decision_id,
      allowed: allowed.policy_decision_id,
      approved: approved.policy_decision_id,
      approval,
      revoked: world.grant.grant_id,
      pack,
    };
    const row = await rt.ctx.store.db
      .selectFrom('approvals')
      .select(['status', 'consumed_by'])
      .where('approval_id', '=', approval)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'consumed', consumed_by: approved.policy_decision_id });
    expect(await verify()).toMatchObject({ valid: true });
  });
  afterEach(async () => rt?.close());

  const db = () => rt.ctx.store.db;
  const verify = async () => (await rt.app.inject({ method: 'GET', url: '/v1/audit/verify', headers: auth() })).json();
  const anyRow = async (table: string): Promise<Row> => {
    const pick: Record<string, () => Promise<Row | undefined>> = {
      decisions: () => one(sql`select * from decisions where policy_decision_id = ${ids.deny}`),
      approvals: () => one(sql`select * from approvals where approval_id = ${ids.approval}`),
      events: () => one(sql`select * from events where operation_ref is null order by seq limit 1`),
      grant_revocations: () => one(sql`select * from grant_revocations where grant_id = ${ids.revoked}`),
      evidence_packs: () => one(sql`select * from evidence_packs where evidence_pack_id = ${ids.pack}`),
      audit_nodes: () => one(sql`select * from audit_nodes where level = 0 and idx = 3`),
    };
    const row = await (pick[table] ?? (() => one(sql`select * from ${sql.table(table)} limit 1`)))();
    if (!row) throw new Error(`no row in ${table}`);
    return row;
  };
  const one = async (query: ReturnType<typeof sql<Row>>) => (await query.execute(db())).rows[0];
  const snapshot = async () => {
    const out: Record<string, unknown> = {};
    for (const table of GUARDED_TABLES) {
      out[table] = (await sql<Row>`select * from ${sql.table(table)}`.execute(db())).rows
        .map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)))
        .sort();
    }
    return out;
  };
  const whereKey = (table: string, row: Row) => {
    if (table === 'audit_nodes') return sql`level = ${row.level} and idx = ${row.idx}`;
    const key = TARGETS[table]!.key;
    return sql`${sql.ref(key)} = ${row[key]}`;
  };

  it('covers every audit-relevant table', () => {
    expect(new Set(GUARDED_TABLES)).toEqual(new Set(Object.keys(TARGETS)));
  });

  it('refuses UPDATE of a non-state column, DELETE, upserts, REPLACE and TRUNCATE on every table', async () => {
    const before = await snapshot();
    for (const table of GUARDED_TABLES) {
      const t = TARGETS[table]!;
      const row = await anyRow(table);
      const where = whereKey(table, row);
      await expect(
        sql`update ${sql.table(table)} set ${sql.ref(t.column)} = ${t.value} where ${where}`.execute(db()),
        `${table}: update ${t.column}`,
      ).rejects.toThrow(/write-once/);
      await expect(
        sql`delete from ${sql.table(table)} where ${where}`.execute(db()),
        `${table}: delete`,
      ).rejects.toThrow(/write-once/);
      // the same row again with the column changed: as an upsert, and (SQLite) as INSERT OR REPLACE
      const columns = Object.keys(row).filter((c) => c !== 'tx_id' && !(dialect === 'postgres' && c === 'seq'));
      const values = columns.map((c) => (c === t.column ? t.value : row[c]));
      const insert = sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
        values (${sql.join(values)})`;
      const conflictKey = table === 'audit_nodes' ? sql`level, idx` : sql.ref(t.key);
      await expect(
        sql`${insert} on conflict (${conflictKey}) do update set ${sql.ref(t.column)} = excluded.${sql.ref(t.column)}`.execute(
          db(),
        ),
        `${table}: upsert`,
      ).rejects.toThrow(/write-once/);
      if (dialect === 'sqlite') {
        await expect(
          sql`insert or replace into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
            values (${sql.join(values)})`.execute(db()),
          `${table}: insert or replace`,
        ).rejects.toThrow(/write-once/);
        await expect(
          sql`replace into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) values (${sql.join(values)})`.execute(
            db(),
          ),
          `${table}: replace into`,
        ).rejects.toThrow(/write-once/);
      } else {
        await expect(sql`truncate ${sql.table(table)} cascade`.execute(db()), `${table}: truncate`).rejects.toThrow(
          /write-once/,
        );
      }
    }
    expect(await snapshot()).toEqual(before);
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('lets state columns change only along the service transitions', async () => {
    const refused: Array<[string, ReturnType<typeof sql>]> = [
      [
        'outcome back to reserved',
        sql`update decisions set outcome = 'reserved' where policy_decision_id = ${ids.allowed}`,
      ],
      ['outcome on a denial', sql`update decisions set outcome = 'executed' where policy_decision_id = ${ids.deny}`],
      [
        'a consumed approval reopened',
        sql`update approvals set status = 'approved' where approval_id = ${ids.approval}`,
      ],
      [
        'a consumed approval given to another decision',
        sql`update approvals set consumed_by = ${ids.deny} where approval_id = ${ids.approval}`,
      ],
      [
        'an envelope edited other than by erasure',
        sql`update events set envelope = replace(envelope, 'ns.', 'xx.') where operation_ref is null`,
      ],
    ];
    for (const [what, statement] of refused) {
      await expect(statement.execute(db()), what).rejects.toThrow(/write-once/);
    }
    // the transitions themselves stay open: executed -> refunded is a state change the service makes
    await sql`update decisions set outcome = 'refunded' where policy_decision_id = ${ids.allowed}`.execute(db());
  });

  it('finds and names an edit of each table made with the guards dropped', async () => {
    const entryIndex = async (auditId: string) =>
      Number(
        (await db().selectFrom('audit_entries').select('idx').where('audit_id', '=', auditId).executeTakeFirstOrThrow())
          .idx,
      );
    const decisionEntry = async (id: string) =>
      entryIndex(
        (
          await db()
            .selectFrom('decisions')
            .select('audit_ref')
            .where('policy_decision_id', '=', id)
            .executeTakeFirstOrThrow()
        ).audit_ref,
      );
    const revocation = await db()
      .selectFrom('grant_revocations')
      .selectAll()
      .where('grant_id', '=', ids.revoked)
      .executeTakeFirstOrThrow();
    const firstEvent = await db()
      .selectFrom('events')
      .select(['event_id', 'envelope'])
      .where('operation_ref', 'is', null)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirstOrThrow();
    // the pack's own signature (the map and the checkpoint inside it keep theirs)
    const packDoc = JSON.parse(
      (
        await db()
          .selectFrom('evidence_packs')
          .select('document')
          .where('evidence_pack_id', '=', ids.pack)
          .executeTakeFirstOrThrow()
      ).document,
    ) as { signature: { signature: string } };
    packDoc.signature.signature = `AAAA${packDoc.signature.signature.slice(4)}`;
    const resigned = JSON.stringify(packDoc);
    const denyRow = await db()
      .selectFrom('decisions')
      .select('record')
      .where('policy_decision_id', '=', ids.deny)
      .executeTakeFirstOrThrow();
    const cases: Array<{
      name: string;
      edit: ReturnType<typeof sql>;
      want: () => Promise<{ index: number; table: string; id: string; failure: string }>;
    }> = [
      {
        name: 'a denial turned into an allow (the column GET /v1/decisions serves)',
        edit: sql`update decisions set decision = 'allow_with_constraints' where policy_decision_id = ${ids.deny}`,
        want: async () => ({
          index: await decisionEntry(ids.deny),
          table: 'decisions',
          id: ids.deny,
          failure: 'record_mismatch',
        }),
      },
      {
        name: 'a decision record rewritten',
        // the record's stored bytes (migration 0010), re-compressed as the service would: only the digest tells
        edit: sql`update decisions set record = ${encodeDecisionRecord(
          decodeDecisionRecord(denyRow.record!).replace('grocer-1', 'casino-1'),
        )} where policy_decision_id = ${ids.deny}`,
        want: async () => ({
          index: await decisionEntry(ids.deny),
          table: 'decisions',
          id: ids.deny,
          failure: 'record_digest_mismatch',
        }),
      },
      {
        name: 'an approval bound to another amount',
        edit: sql`update approvals set bound = replace(bound, '4500', '9900') where approval_id = ${ids.approval}`,
        want: async () => {
          const d = await db()
            .selectFrom('approvals')
            .select('policy_decision_id')
            .where('approval_id', '=', ids.approval)
            .executeTakeFirstOrThrow();
          return {
            index: await decisionEntry(d.policy_decision_id),
            table: 'approvals',
            id: ids.approval,
            failure: 'record_mismatch',
          };
        },
      },
      {
        name: 'an event envelope rewritten',
        edit: sql`update events set envelope = replace(envelope, '"reason_code":"', '"reason_code":"x') where event_id = ${firstEvent.event_id}`,
        want: async () => ({
          index: await entryIndex((JSON.parse(firstEvent.envelope) as { audit_ref: string }).audit_ref),
          table: 'events',
          id: firstEvent.event_id,
          failure: 'record_digest_mismatch',
        }),
      },
      {
        name: 'a revocation moved in time',
        edit: sql`update grant_revocations set revoked_at = '2000-01-01T00:00:00.000Z' where grant_id = ${ids.revoked}`,
        want: async () => ({
          index: await entryIndex(revocation.operation_ref),
          table: 'grant_revocations',
          id: ids.revoked,
          failure: 'record_mismatch',
        }),
      },
      {
        name: 'a revocation deleted',
        edit: sql`delete from grant_revocations where grant_id = ${ids.revoked}`,
        want: async () => ({
          index: await entryIndex(revocation.operation_ref),
          table: 'grant_revocations',
          id: revocation.operation_ref,
          failure: 'record_missing',
        }),
      },
      {
        name: 'a decision deleted',
        edit: sql`delete from decisions where policy_decision_id = ${ids.approved}`,
        want: async () => {
          // read before the edit (its event's envelope is derived from it: services/events/decision-envelope.ts)
          const { audit_ref: auditId } = await db()
            .selectFrom('decisions')
            .select('audit_ref')
            .where('policy_decision_id', '=', ids.approved)
            .executeTakeFirstOrThrow();
          return { index: await entryIndex(auditId), table: 'decisions', id: auditId, failure: 'record_missing' };
        },
      },
      {
        name: 'an evidence pack whose decision map was rewritten',
        edit: sql`update evidence_packs set document = replace(document, '"issued_at":"', '"issued_at":"1') where evidence_pack_id = ${ids.pack}`,
        want: async () => ({
          index: await decisionEntry(ids.deny),
          table: 'evidence_packs',
          id: ids.pack,
          failure: 'record_digest_mismatch',
        }),
      },
      {
        name: 'an evidence pack re-signed by someone else',
        edit: sql`update evidence_packs set document = ${resigned} where evidence_pack_id = ${ids.pack}`,
        want: async () => ({
          index: await decisionEntry(ids.deny),
          table: 'evidence_packs',
          id: ids.pack,
          failure: 'record_signature_invalid',
        }),
      },
    ];
    for (const c of cases) {
      const want = await c.want();
      const before = await snapshot();
      await bypassingGuards(db(), dialect, async (trx) => {
        await c.edit.execute(trx);
      });
      expect(await snapshot(), c.name).not.toEqual(before);
      const answer = await verify();
      expect(answer, c.name).toMatchObject({
        valid: false,
        failure: want.failure,
        first_invalid_index: want.index,
        record: { table: want.table, id: want.id },
      });
      // restore: the next case starts from a valid log
      await bypassingGuards(db(), dialect, async (trx) => {
        for (const table of ['decisions', 'approvals', 'events', 'grant_revocations', 'evidence_packs'] as const) {
          const rows = (before[table] as string[]).map((r) => JSON.parse(r, reviveBuffer) as Row);
          await sql`delete from ${sql.table(table)}`.execute(trx);
          for (const row of rows) {
            const cols = Object.keys(row).filter((k) => k !== 'tx_id');
            const insert = sql`insert into ${sql.table(table)} (${sql.join(cols.map((k) => sql.ref(k)))})`;
            await (
              dialect === 'postgres' && cols.includes('seq')
                ? sql`${insert} overriding system value values (${sql.join(cols.map((k) => row[k]))})`
                : sql`${insert} values (${sql.join(cols.map((k) => row[k]))})`
            ).execute(trx);
          }
        }
      });
      expect(await verify(), `${c.name}: restored`).toMatchObject({ valid: true });
    }
  });

  it('names a checkpoint whose root was rewritten', async () => {
    // the latest: the first one is also the checkpoint of the pack, which would be named first (a lower index)
    const cp = await db()
      .selectFrom('audit_checkpoints')
      .selectAll()
      .orderBy('size', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    await bypassingGuards(db(), dialect, async (trx) => {
      await sql`update audit_checkpoints set root_hash = ${'A'.repeat(43) + '='} where size = ${cp.size}`.execute(trx);
    });
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'checkpoint_root_mismatch',
      record: { table: 'audit_checkpoints', id: String(cp.size) },
    });
  });
});
