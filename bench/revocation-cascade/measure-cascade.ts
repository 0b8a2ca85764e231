/**
 * One cascade measurement: a fresh in-process service (SQLite file in a temp dir, or a fresh PostgreSQL schema), a
 * root grant per sample with `size - 1` grants inserted below it (the fixture; not timed), then
 * `POST /v1/grants/{root}/revoke` over loopback HTTP, timed from the call to the answer (and in CPU time). Every answer is checked:
 * the count must be `size`, and the events of the operation must all be there.
 * Before each cascade, the floor it is compared with: `size` rows of the shape of its event rows (id, subject,
 * operation, instant; a text primary key) inserted in ONE transaction into a scratch table of the same store, the
 * usual way (multi-row INSERTs of 500 rows with bound parameters), timed from BEGIN to COMMIT; then dropped.
 */
import { sql, type Kysely } from 'kysely';
import type { Database, Dialect } from '../../packages/server/src/store/index.ts';
import {
  buildDelegationWorld,
  CARD,
  PURCHASE,
  ROOT_SCOPE,
} from '../../packages/server/test/support/delegation-world.ts';
import { inOneYear } from '../../packages/server/test/support/fixtures.ts';
import { insertGrantTree } from '../../packages/server/test/support/grant-tree.ts';
import { ADMIN_TOKEN, startTestRuntime } from '../../packages/server/test/support/test-runtime.ts';

export interface CascadeSample {
  /** client wall time of the revoke call, ms */
  wallMs: number;
  /** the service's own `elapsed_ms` (call to commit) */
  serviceMs: number;
  /**
   * CPU time (user + system) of this process, service and client together, during the call: what the machine
   * spent, whatever else shares its cores. Excludes waiting for fsync; PostgreSQL's own work runs elsewhere.
   */
  cpuMs: number;
  /** the floor: inserting `size` rows in one transaction, same store, just before, ms */
  floorMs: number;
}

const FLOOR_BATCH = 500;

/** Inserts `size` event-shaped rows in one transaction into a scratch table; returns the time from BEGIN to COMMIT. */
async function insertFloor(
  db: Kysely<Database>,
  durable: () => Promise<void>,
  size: number,
  run: number,
): Promise<number> {
  const table = `bench_insert_floor_${run}`;
  await sql`create table ${sql.table(table)} (
    id text primary key, subject text not null, operation text not null, at text not null)`.execute(db);
  const at = new Date().toISOString();
  const operation = `ns:audit:0196ffff-0000-7000-8000-${String(run).padStart(12, '0')}`;
  try {
    const started = performance.now();
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < size; i += FLOOR_BATCH) {
        const rows = Array.from({ length: Math.min(FLOOR_BATCH, size - i) }, (_, j) => {
          const n = String(i + j).padStart(12, '0');
          return sql`(${`ns:event:0196ffff-0000-7000-8000-${n}`}, ${`ns:authority:grant:0196ffff-0000-7000-8000-${n}`}, ${operation}, ${at})`;
        });
        await sql`insert into ${sql.table(table)} (id, subject, operation, at) values ${sql.join(rows)}`.execute(trx);
      }
    });
    // durable, as the cascade's answer is: on SQLite the store syncs its log itself, after the commit
    await durable();
    return performance.now() - started;
  } finally {
    await sql`drop table ${sql.table(table)}`.execute(db);
    await durable();
  }
}

/**
 * The store quiet before the timed call: every commit durable, and no checkpoint round under way. On SQLite the
 * fixture's bulk inserts (the tree, the floor) leave ~200 MB of log that the checkpoint thread copies back after
 * their sync; before the store synced its log itself (session 4) that copy ran inside their own commits, so the
 * cascade always started from a quiet store. The log's size is read after a sync and a round may start then: each
 * turn gives it that moment.
 */
async function quiet(store: { durable(): Promise<void>; checkpointIdle(): Promise<void> }): Promise<void> {
  for (let turn = 0; turn < 2; turn++) {
    await store.durable();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store.checkpointIdle();
  }
}

export async function measureCascade(dialect: Dialect, size: number, samples: number): Promise<CascadeSample[]> {
  const rt = await startTestRuntime({ dialect });
  try {
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const w = await buildDelegationWorld(base, ADMIN_TOKEN);
    const template = JSON.stringify(
      (await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {})).body.link,
    );
    const out: CascadeSample[] = [];
    for (let i = 0; i < samples; i++) {
      const root = await w.must('POST', '/v1/grants', {
        principal_entity_id: 'ns:entity:person:alice',
        actor_entity_id: 'ns:entity:agent:concierge',
        capability_id: PURCHASE,
        resource_id: CARD,
        // a root grant that can move money must end (docs/delegation.md)
        scope: { ...ROOT_SCOPE, valid_until: inOneYear() },
      });
      await insertGrantTree(rt.ctx, { root, size, template });
      const floorMs = await insertFloor(rt.ctx.store.db, () => rt.ctx.store.durable(), size, i);
      await quiet(rt.ctx.store);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const res = await w.call('POST', `/v1/grants/${root.grant_id}/revoke`);
      const wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      if (res.status !== 200 || res.body.revoked_count !== size) {
        throw new Error(`revoke of ${size} answered ${res.status} ${JSON.stringify(res.body)}`);
      }
      const { rows } = await sql<{ n: number | string }>`
        select count(*) as n from events where event_type = 'ns.authority.revoked'
        and operation_ref = ${res.body.audit_ref}`.execute(rt.ctx.store.db);
      if (Number(rows[0]?.n) !== size) throw new Error(`expected ${size} revoked events, found ${rows[0]?.n}`);
      out.push({ wallMs, serviceMs: res.body.elapsed_ms, cpuMs, floorMs });
    }
    return out;
  } finally {
    await rt.close();
  }
}
