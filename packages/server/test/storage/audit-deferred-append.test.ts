/**
 * The write queue's audit appender keeps a batch's entries in memory and writes them at the end of the batch
 * (audit/audit-appender.ts), unless a unit settles it first to learn positions. Whatever the mix, the entries get
 * the positions of their units' order, a unit that settles sees every earlier unit's entry already in the log, and a
 * unit that fails leaves no entry, whether it settled or not; the log then verifies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context.ts';
import { verifyAuditLog } from '../../src/audit/verify-audit-log.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { auditOf } from '../../src/store/write-queue.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';

for (const dialect of await testDialects()) {
  describe(`deferred audit appends in one batch (${dialect})`, () => {
    let ctx: AppContext;
    let dir: string;
    let drop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'aar-deferred-'));
      const schema = dialect === 'postgres' ? await freshPgSchema() : undefined;
      drop = schema?.drop;
      ctx = await openRuntime(loadConfig({ AAR_DATA_DIR: dir }, schema ? { databaseUrl: schema.url } : {}));
    });
    afterAll(async () => {
      await ctx?.store.close();
      await drop?.();
      rmSync(dir, { recursive: true, force: true });
    });

    const entry = (i: number) => ({
      kind: 'test.deferred',
      subject_ref: `s${i}`,
      record: { i },
      occurred_at: new Date().toISOString(),
    });

    it('orders entries by unit, shows a settling unit the earlier ones, and drops a failed unit entirely', async () => {
      const before = (await verifyAuditLog(ctx)).size as number;
      // start-up writes batches of its own (the shipped policy content is seeded then): count this test's only
      const batchesBefore = ctx.writer.batches;
      const units = Array.from({ length: 12 }, (_, i) =>
        ctx.writer.run(async (trx) => {
          const appender = auditOf(trx);
          const appended = await appender.append(entry(i));
          if (i % 3 === 1) {
            await appender.settle();
            const seen = await trx.selectFrom('audit_entries').select('idx').where('audit_id', '=', appended.audit_id);
            expect((await seen.executeTakeFirst())?.idx).toBeDefined();
            return { i, index: appended.index, sizeWhenSettled: appender.size };
          }
          // units 5 and 8 fail after appending (8 after settling): their entries must go with them
          if (i === 5) throw new Error('unit 5 fails');
          if (i === 8) {
            await appender.settle();
            throw new Error('unit 8 fails');
          }
          return { i, appended };
        }),
      );
      const settled = await Promise.allSettled(units);
      expect(
        settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
      ).toEqual(['Error: unit 5 fails', 'Error: unit 8 fails']);
      const values = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const indexes = values.map((v) => ('index' in v ? v.index : v.appended.index));
      // ten entries, consecutive, in the order of their units
      expect(indexes).toEqual(Array.from({ length: 10 }, (_, k) => before + k));
      for (const v of values) if ('sizeWhenSettled' in v) expect(v.sizeWhenSettled).toBe((v.index ?? NaN) + 1);
      const rows = await ctx.store.db
        .selectFrom('audit_entries')
        .select(['idx', 'subject_ref'])
        .where('kind', '=', 'test.deferred')
        .orderBy('idx')
        .execute();
      expect(rows.map((r) => r.subject_ref)).toEqual(['s0', 's1', 's2', 's3', 's4', 's6', 's7', 's9', 's10', 's11']);
      expect(await verifyAuditLog(ctx)).toMatchObject({ valid: true, size: before + 10 });
      // SQLite: the twelve units share batches. PostgreSQL: a batch ends with a unit that settled (took the tip:
      // write-queue.ts, LOCK ORDER), so units 1, 4, 7, 8 (settles, then fails) and 10 end theirs
      const batches = ctx.writer.batches - batchesBefore;
      if (dialect === 'postgres') expect(batches).toBeGreaterThanOrEqual(6);
      else expect(batches).toBeLessThanOrEqual(3);
    });
  });
}
