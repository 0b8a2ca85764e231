/**
 * The embedded store's durability off the event loop (store/wal-barrier.ts, store/wal-checkpointer.ts): commits run
 * `synchronous = NORMAL`, the store syncs the log itself on libuv's pool, and nothing is answered before the sync
 * that covers it, neither a write unit nor an HTTP answer that read a committed row. A sync function is injected
 * to hold or fail syncs. SQLite only: PostgreSQL's commit is durable and its barrier resolves at once.
 */
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import SqliteDatabase from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Transaction } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app-context.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ensureBootstrapToken } from '../../src/http/authenticate.ts';
import { openRuntime } from '../../src/runtime.ts';
import type { Database } from '../../src/store/index.ts';
import { fdatasyncFile, type WalSync } from '../../src/store/wal-barrier.ts';
import { TRUNCATE_AT_LIMITS } from '../../src/store/wal-checkpointer.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime } from '../support/test-runtime.ts';

/** A sync that passes through to fdatasync, or is held until released, or fails. */
class InjectedSync {
  calls = 0;
  held = false;
  failing = false;
  #waiting: Array<() => void> = [];
  readonly sync: WalSync = async (fd) => {
    this.calls += 1;
    if (this.failing) throw new Error('EIO: injected sync failure');
    if (this.held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    await fdatasyncFile(fd);
  };
  get waiting(): number {
    return this.#waiting.length;
  }
  release(): void {
    this.held = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

interface Started {
  ctx: AppContext;
  app: FastifyInstance;
  dataDir: string;
  close(): Promise<void>;
}

async function start(sync: WalSync, checkpointPages?: number): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-wal-'));
  const config = loadConfig(
    { AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: ADMIN_TOKEN, AAR_ISSUER_URL: 'http://127.0.0.1:8080' },
    {},
  );
  const ctx = await openRuntime(config, { durability: { sync, ...(checkpointPages ? { checkpointPages } : {}) } });
  const app = await buildApp(ctx);
  await ensureBootstrapToken(ctx);
  return {
    ctx,
    app,
    dataDir,
    async close() {
      await app.close();
      await ctx.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const merchant = (id: string, payload = '') => ({
  merchant_id: id,
  display_name: `M${payload}`,
  category: '5411',
  jurisdiction: 'DE',
  state: 'active' as const,
  created_at: 't',
  updated_at: 't',
});
const insertMerchant =
  (id: string, payload = '') =>
  async (trx: Transaction<Database>) => {
    await trx.insertInto('merchants').values(merchant(id, payload)).execute();
    return id;
  };
/** the checkpoint trigger of the log tests, in pages, and the `-wal` size it means (header, then page + frame header) */
const LOG_PAGES = 50;
const LOG_LIMIT = 32 + LOG_PAGES * (4096 + 24);
const BULK_ROWS = 2_000;
/** One unit of 2,000 merchants of ~3 KB: ~2,000 pages through the log at once, far past TRUNCATE_AT_LIMITS × the limit. */
const writeBulk = (ctx: AppContext) =>
  ctx.writer.run(async (trx) => {
    const payload = 'y'.repeat(3000);
    for (let i = 0; i < BULK_ROWS; i++) await insertMerchant(`bulk-${i}`, payload)(trx);
    return null;
  });

/**
 * Stops the service, then opens its file alone (read-only, as the next start would find it): checks its integrity
 * and counts the merchants whose id matches each pattern. Removes the data dir.
 */
async function closeAndCountAlone(s: Started, patterns: readonly string[]): Promise<number[]> {
  const file = join(s.dataDir, 'aar.sqlite');
  await s.app.close();
  await s.ctx.store.close();
  const reopened = new SqliteDatabase(file, { readonly: true });
  try {
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    const count = reopened.prepare('select count(*) as n from merchants where merchant_id like ?');
    return patterns.map((p) => (count.get(p) as { n: number }).n);
  } finally {
    reopened.close();
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}
const settled = <T>(promise: Promise<T>) => {
  const state = { done: false };
  promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
};

describe('durability of the embedded store off the event loop', () => {
  let started: Started | undefined;
  afterEach(async () => {
    await started?.close();
    started = undefined;
  });

  it('resolves a unit only after the sync covering its commit, and runs the next batch meanwhile', async () => {
    const injected = new InjectedSync();
    started = await start(injected.sync);
    const { writer, store } = started.ctx;
    await store.durable();
    injected.held = true;

    const first = writer.run(insertMerchant('m-first'));
    const firstState = settled(first);
    await until(() => injected.waiting === 1, 'the first sync');
    const batchesAfterFirst = writer.batches;
    expect(firstState.done).toBe(false);
    // the queue's own commit holds only its units; a read that sees it holds every answer from then on
    expect(store.answerPending).toBe(false);
    await store.db.selectFrom('merchants').select('merchant_id').execute();
    expect(store.answerPending).toBe(true);

    // the next batch runs (statements and commit) while the first sync is still pending
    let secondRan = false;
    const second = writer.run(async (trx) => {
      const value = await insertMerchant('m-second')(trx);
      secondRan = true;
      return value;
    });
    const secondState = settled(second);
    await until(() => secondRan && writer.batches === batchesAfterFirst + 1, 'the second batch to run');
    for (let i = 0; i < 5; i++) await turn();
    expect(injected.waiting).toBe(1); // the second commit waits for the next sync, not a second one in parallel
    expect(firstState.done).toBe(false);
    expect(secondState.done).toBe(false);

    injected.release();
    expect(await first).toBe('m-first');
    expect(await second).toBe('m-second');
    expect(store.answerPending).toBe(false);
  });

  it('holds an HTTP answer that read a committed row until the sync covering it (real socket)', async () => {
    const injected = new InjectedSync();
    started = await start(injected.sync);
    const { store } = started.ctx;
    const base = await started.app.listen({ host: '127.0.0.1', port: 0 });
    const get = () =>
      fetch(`${base}/v1/merchants/m-read`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((res) =>
        res.status === 200 ? 200 : res.status,
      );
    await store.durable();
    injected.held = true;
    // committed outside the write queue (autocommit), as a webhook fan-out or a token-usage upsert would be
    await store.db.insertInto('merchants').values(merchant('m-read')).execute();
    const answer = get();
    const answerState = settled(answer);
    await until(() => injected.waiting >= 1, 'the sync');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(answerState.done).toBe(false);
    injected.release();
    expect(await answer).toBe(200);
    // clean again: the next answer passes without a sync
    const calls = injected.calls;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(injected.calls).toBe(calls);
  });

  it('fails closed when a sync fails: 503, writes refused until restart, health 503', async () => {
    const injected = new InjectedSync();
    started = await start(injected.sync);
    const { writer, store } = started.ctx;
    const base = await started.app.listen({ host: '127.0.0.1', port: 0 });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    await store.durable();
    injected.failing = true;

    const created = await fetch(`${base}/v1/merchants`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ id: 'm-lost', display_name: 'Lost', category: '5411', jurisdiction: 'DE' }),
    });
    expect(created.status).toBe(503);
    expect((await created.json()) as { code?: string }).toMatchObject({ code: 'audit_unavailable' });
    expect(store.durabilityFailure).toBeDefined();

    injected.failing = false; // a later sync would succeed: the store must stay failed anyway
    await expect(writer.run(insertMerchant('m-after'))).rejects.toMatchObject({ code: 'audit_unavailable' });
    await expect(store.db.insertInto('merchants').values(merchant('m-direct')).execute()).rejects.toMatchObject({
      code: 'audit_unavailable',
    });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(503);
    expect((await health.json()) as { code?: string }).toMatchObject({ code: 'storage_unavailable' });
    const read = await fetch(`${base}/v1/merchants/m-lost`, { headers: admin });
    expect(read.status).toBe(503);
  });

  it('fails the store when the log file is replaced under it (the next start would not find what was synced)', async () => {
    started = await start(fdatasyncFile);
    const { writer, store } = started.ctx;
    const wal = join(started.dataDir, 'aar.sqlite-wal');
    await writer.run(insertMerchant('m-before'));
    // another program puts a new file (a new inode) at the log's path; SQLite keeps writing its own descriptor
    copyFileSync(wal, `${wal}.copy`);
    renameSync(`${wal}.copy`, wal);
    // the tripwire runs after syncs, off the answers' path, at most every 50 ms: keep writing until it fires
    await until(() => {
      void writer.run(insertMerchant(`m-${Math.random()}`)).catch(() => undefined);
      return store.durabilityFailure !== undefined;
    }, 'the replaced log to fail the store');
    expect(store.durabilityFailure?.message).toMatch(/could not be made durable/);
    await expect(writer.run(insertMerchant('m-after'))).rejects.toMatchObject({ code: 'audit_unavailable' });
  });

  it('keeps the log bounded over thousands of writes with the checkpoint thread, and leaves a clean file', async () => {
    started = await start(fdatasyncFile, LOG_PAGES);
    const { writer, store } = started.ctx;
    const file = join(started.dataDir, 'aar.sqlite');
    const limit = LOG_LIMIT;
    let largest = 0;
    let restarted = false;
    const payload = 'x'.repeat(1500);
    for (let round = 0; round < 60; round++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => writer.run(insertMerchant(`m-${round}-${i}`, payload))));
      const size = statSync(`${file}-wal`).size;
      // start-up ran with SQLite's own checkpoints (up to 1,000 pages); from the first restart on, ours hold
      if (size <= limit) restarted = true;
      if (restarted) largest = Math.max(largest, size);
    }
    await store.durable();
    // 3,000 rows of ~1.5 KB: ~1,500 pages went through the log, 30 times the limit
    expect(statSync(file).size).toBeGreaterThan(10 * limit);
    expect(restarted).toBe(true);
    expect(largest).toBeLessThan(4 * limit);
    const [count] = await store.db
      .selectFrom('merchants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .execute();
    expect(Number(count?.n)).toBeGreaterThanOrEqual(3_000);
    // quiet: once the round the last sync started is over, the log is fully copied back, so the next commit restarts
    // it (the length is read after a sync, then a round may start: give it that turn)
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store.checkpointIdle();
    const fileBefore = statSync(`${file}-wal`).size;
    await writer.run(insertMerchant('m-after-idle', payload));
    await store.durable();
    // the restarted log holds that one commit, written over the file's start: the file was not cut (no ftruncate in
    // the commit), and it stays below the size at which SQLite cuts it (journal_size_limit, TRUNCATE_AT_LIMITS ×)
    const logAfter = await store.walLogBytes();
    expect(logAfter).toBeGreaterThan(0);
    expect(logAfter).toBeLessThanOrEqual(limit);
    expect(statSync(`${file}-wal`).size).toBe(fileBefore);
    expect(fileBefore).toBeGreaterThan(limit);
    expect(fileBefore).toBeLessThan(TRUNCATE_AT_LIMITS * limit);
    const dataDir = started.dataDir;
    await started.app.close();
    await store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    rmSync(dataDir, { recursive: true, force: true });
    started = undefined;
  });

  it('holds the writes that arrive while the log is truncated, and every one of them commits', async () => {
    started = await start(fdatasyncFile, LOG_PAGES);
    const { writer, store } = started.ctx;
    const wal = join(started.dataDir, 'aar.sqlite-wal');
    await writeBulk(started.ctx);
    await store.durable();
    const bulkLog = statSync(wal).size;
    expect(bulkLog).toBeGreaterThan(TRUNCATE_AT_LIMITS * LOG_LIMIT);
    // small writes keep coming until the log has been cut: they run beside the free pass, and are held through the
    // gated and the TRUNCATE passes (nothing else shrinks the file while they come)
    const small: Promise<string>[] = [];
    const deadline = performance.now() + 10_000;
    while (statSync(wal).size >= bulkLog) {
      if (performance.now() > deadline) throw new Error('the log was never cut');
      small.push(writer.run(insertMerchant(`during-${small.length}`)));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const during = (await Promise.all(small)).length;
    expect(during).toBeGreaterThan(0);
    await writer.run(insertMerchant('after'));
    await store.durable();
    const counts = await closeAndCountAlone(started, ['bulk-%', 'during-%', 'after']);
    started = undefined;
    expect(counts).toEqual([BULK_ROWS, during, 1]);
  });

  it('truncates a large log on the checkpoint thread, not in the next commit, and loses nothing', async () => {
    started = await start(fdatasyncFile, LOG_PAGES);
    const { writer, store } = started.ctx;
    const file = join(started.dataDir, 'aar.sqlite');
    const limit = LOG_LIMIT;
    await writeBulk(started.ctx);
    await store.durable();
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(TRUNCATE_AT_LIMITS * limit);
    // with no write at all, the checkpoint thread restarts the log and truncates it: the next commit finds an empty
    // file, nothing to free
    await until(() => statSync(`${file}-wal`).size === 0, 'the checkpoint thread to truncate the log');
    await writer.run(insertMerchant('after-truncate'));
    await store.durable();
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
    expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(limit);
    const counts = await closeAndCountAlone(started, ['bulk-%', 'after-truncate']);
    started = undefined;
    expect(counts).toEqual([BULK_ROWS, 1]);
  });
});

describe.each(await testDialects())('the durability barrier on %s', (dialect) => {
  it('resolves at once when nothing was written since the last sync', async () => {
    const rt = await startTestRuntime({ dialect });
    try {
      await rt.ctx.store.durable();
      await rt.ctx.store.checkpointIdle(); // nothing under way: at once on both dialects
      expect(rt.ctx.store.answerPending).toBe(false);
      await rt.ctx.writer.run(insertMerchant('m-one'));
      expect(rt.ctx.store.answerPending).toBe(false);
      expect(rt.ctx.store.durabilityFailure).toBeUndefined();
    } finally {
      await rt.close();
    }
  });
});
