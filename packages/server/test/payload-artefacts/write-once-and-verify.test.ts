/**
 * Payload artefacts are write-once on both databases (migration 0025): the one move the service makes
 * (verified -> executed, once) is the only change the database lets through; any other UPDATE, a DELETE or a
 * replacing INSERT is refused. With the guards dropped (an attacker with SQL access, not the key), the audit record
 * check (audit/record-checks/check-payload-artefacts.ts) finds a changed byte in every column but `seq`, and a
 * deleted row.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPayloadArtefacts } from '../../src/audit/record-checks/check-payload-artefacts.ts';
import { RecordFindings } from '../../src/audit/record-checks/record-findings.ts';
import type { Database } from '../../src/store/index.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { buildArtefactWorld, unknownDecision, type ArtefactWorld } from './support/artefact-world.ts';

const dialects = await testDialects();

describe.each(dialects)('payload artefacts are write-once on %s', (dialect) => {
  let rt: TestRuntime;
  let w: ArtefactWorld;
  const ids: Record<'verified' | 'rejected' | 'executed', string> = { verified: '', rejected: '', executed: '' };
  const db = (): Kysely<Database> => rt.ctx.store.db;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildArtefactWorld(base, ADMIN_TOKEN);
    ids.verified = (await w.present({ policy_decision_id: await w.allowed(3) })).body.payload_artefact_id;
    ids.rejected = (await w.present({ policy_decision_id: unknownDecision() })).body.payload_artefact_id;
    const executed = (await w.present({ kind: 'payment_instruction', policy_decision_id: await w.allowed(4) })).body;
    expect((await w.execute(executed.payload_artefact_id, 'failed')).status).toBe(200);
    ids.executed = executed.payload_artefact_id;
  }, 60_000);
  afterAll(async () => rt?.close());

  const refused = async (statement: Promise<unknown>) => {
    await expect(statement).rejects.toThrow(/write-once|constraint|violates/i);
  };
  const update = (id: string, set: Record<string, unknown>) =>
    db()
      .updateTable('payload_artefacts')
      .set(set as never)
      .where('payload_artefact_id', '=', id)
      .execute();

  it('refuses every change but verified -> executed, any delete, and a replacing insert', async () => {
    await refused(update(ids.rejected, { state: 'verified', reason: null, verified_for: 'x' }));
    await refused(
      update(ids.rejected, { state: 'executed', outcome: 'executed', executed_at: '2026-01-01T00:00:00.000Z' }),
    );
    await refused(update(ids.verified, { digest: 'A'.repeat(43) }));
    await refused(update(ids.verified, { state: 'rejected', reason: 'decision_unknown', verified_for: null }));
    await refused(update(ids.executed, { state: 'verified', outcome: null, executed_at: null }));
    await refused(update(ids.executed, { outcome: 'executed' }));
    await refused(db().deleteFrom('payload_artefacts').where('payload_artefact_id', '=', ids.rejected).execute());
    if (dialect === 'sqlite') {
      await refused(
        sql`insert or replace into payload_artefacts select * from payload_artefacts where payload_artefact_id = ${ids.rejected}`.execute(
          db(),
        ),
      );
    } else {
      await refused(sql`truncate payload_artefacts`.execute(db()));
    }
    // the service's one move goes through (rolled back: the row stays verified for the next test)
    await db()
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable('payload_artefacts')
          .set({ state: 'executed', outcome: 'executed', executed_at: '2026-01-01T00:00:00.000Z' })
          .where('payload_artefact_id', '=', ids.verified)
          .execute();
        throw new Error('roll back');
      })
      .catch((error: unknown) => expect(String(error)).toContain('roll back'));
    expect(await findings()).toBeUndefined();
  });

  it('finds a changed byte in every column but seq, of a verified, a rejected and an executed artefact', async () => {
    const all = Object.keys(
      (await db().selectFrom('payload_artefacts').selectAll().executeTakeFirstOrThrow()) as Record<string, unknown>,
    ).filter((c) => c !== 'seq');
    const unnoticed: string[] = [];
    for (const id of Object.values(ids)) {
      const row = (await db()
        .selectFrom('payload_artefacts')
        .selectAll()
        .where('payload_artefact_id', '=', id)
        .executeTakeFirstOrThrow()) as Record<string, unknown>;
      for (const column of all) {
        const original = row[column];
        const changed = flipped(column, original);
        let edited = false;
        await bypassingGuards(db(), dialect, async (trx) => {
          try {
            await sql`update payload_artefacts set ${sql.ref(column)} = ${changed} where seq = ${row.seq}`.execute(trx);
            edited = true;
          } catch (error) {
            // a CHECK constraint refuses the value: that column cannot be edited this way
            if (!/constraint|violates/i.test(String(error))) throw error;
          }
        });
        if (!edited) continue;
        const found = await findings();
        if (found === undefined) unnoticed.push(`${id.slice(-4)}.${column}`);
        await bypassingGuards(db(), dialect, async (trx) => {
          await sql`update payload_artefacts set ${sql.ref(column)} = ${original as never} where seq = ${row.seq}`.execute(
            trx,
          );
        });
      }
    }
    expect(unnoticed).toEqual([]);
    expect(await findings()).toBeUndefined();
  });

  it('finds a deleted artefact', async () => {
    const row = await db()
      .selectFrom('payload_artefacts')
      .selectAll()
      .where('payload_artefact_id', '=', ids.rejected)
      .executeTakeFirstOrThrow();
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx.deleteFrom('payload_artefacts').where('payload_artefact_id', '=', ids.rejected).execute();
    });
    expect(await findings()).toMatchObject({ reason: 'record_missing', record: { id: ids.rejected } });
    await bypassingGuards(db(), dialect, async (trx) => {
      const { seq: _seq, ...rest } = row;
      await trx.insertInto('payload_artefacts').values(rest).execute();
    });
    expect(await findings()).toBeUndefined();
  });

  async function findings() {
    const size = Number(
      (
        await db()
          .selectFrom('audit_entries')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const found = new RecordFindings(size);
    await checkPayloadArtefacts(db(), found, 2);
    return found.first;
  }
});

/** One changed value of the column's type (text: a character moved on; a null: a value of its own). */
function flipped(column: string, value: unknown): unknown {
  if (value === null || value === undefined) {
    if (column === 'amount_minor') return 1;
    if (column.endsWith('_at')) return '2026-01-01T00:00:00.000Z';
    if (column === 'outcome') return 'executed';
    if (column === 'reason') return 'decision_unknown';
    return 'x';
  }
  if (typeof value === 'number') return value + 1;
  const text = String(value);
  if (/^\d+$/.test(text)) return String(Number(text) + 1);
  const at = Math.floor(text.length / 2);
  const c = text[at]!;
  const next = c === 'a' ? 'b' : c === 'b' ? 'c' : /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : 'a';
  return `${text.slice(0, at)}${next}${text.slice(at + 1)}`;
}
