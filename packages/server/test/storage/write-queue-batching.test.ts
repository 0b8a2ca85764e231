/**
 * How the write queue forms batches (store/write-queue.ts), on each database: units enqueued in the next turn of the
 * event loop (requests read while the previous turn ran) join the batch of the units before them and share its
 * commit; a unit enqueued while a batch commits waits for the next one, and every unit sees the writes before it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Transaction } from 'kysely';
import type { Database } from '../../src/store/index.ts';
import { auditOf } from '../../src/store/write-queue.ts';
import { testDialects } from '../support/dialects.ts';
import { merchantRow } from '../support/merchant-row.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('write queue batching on %s', (dialect) => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
  });
  afterEach(async () => rt?.close());

  const insertMerchant = (id: string) => async (trx: Transaction<Database>) => {
    await trx.insertInto('merchants').values(merchantRow(id)).execute();
    const { n } = await trx
      .selectFrom('merchants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  };
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('lets units of the next event-loop turn join the batch', async () => {
    const before = rt.ctx.writer.batches;
    const first = rt.ctx.writer.run(insertMerchant('m1'));
    await nextTurn();
    const second = rt.ctx.writer.run(insertMerchant('m2'));
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(rt.ctx.writer.batches - before).toBe(1);
  });

  it('runs a unit that comes after the batch was taken in the next batch', async () => {
    const before = rt.ctx.writer.batches;
    const first = rt.ctx.writer.run(insertMerchant('m1'));
    await nextTurn();
    await nextTurn();
    await nextTurn();
    const late = rt.ctx.writer.run(insertMerchant('m2'));
    expect(await Promise.all([first, late])).toEqual([1, 2]);
    expect(rt.ctx.writer.batches - before).toBe(2);
  });

  it('ends a batch with a unit that took the audit tip, on PostgreSQL (lock order: no row lock after the tip)', async () => {
    const before = rt.ctx.writer.batches;
    const settles = rt.ctx.writer.run(async (trx) => {
      await auditOf(trx).settle();
      return 0;
    });
    const after = rt.ctx.writer.run(insertMerchant('m1'));
    const last = rt.ctx.writer.run(insertMerchant('m2'));
    // every unit runs, in order, and sees the writes before it
    expect(await Promise.all([settles, after, last])).toEqual([0, 1, 2]);
    // PostgreSQL: the units after the one that locked the tip go first in the next batch; SQLite has one writer and
    // no such deadlock, so its batch keeps them
    expect(rt.ctx.writer.batches - before).toBe(dialect === 'postgres' ? 2 : 1);
    expect(rt.ctx.writer.units).toBeGreaterThanOrEqual(3);
  });
});
