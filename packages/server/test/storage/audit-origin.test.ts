/**
 * The audit log's origin is the store's (CONTRACT section 8), on each database: fixed from the issuer URL at the
 * first open and kept when the service is restarted under another issuer URL or port; a store made before it was
 * stored adopts its latest checkpoint's origin; instances opening a new store at once agree (first writer wins).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { auditOrigin, establishAuditOrigin } from '../../src/audit/audit-origin.ts';
import { signCheckpoint } from '../../src/audit/checkpoints.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { migrateStore, openStore } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';
import { auth, startTestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('audit origin on %s', (dialect) => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  /** A fresh store (temp data dir, or a fresh PostgreSQL schema) that several runtimes can open. */
  const freshStore = async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aar-origin-'));
    const pg = dialect === 'postgres' ? await freshPgSchema() : undefined;
    cleanup.push(async () => {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    return (issuerUrl: string) =>
      loadConfig({ AAR_DATA_DIR: dataDir, AAR_ISSUER_URL: issuerUrl }, pg ? { databaseUrl: pg.url } : {});
  };

  it('is fixed at the first open and kept under another issuer URL', async () => {
    const config = await freshStore();
    const first = await openRuntime(config('https://pay.example.com/aar'));
    expect(await auditOrigin(first)).toBe('pay.example.com/aar/audit');
    await first.store.close();
    const second = await openRuntime(config('http://127.0.0.1:9999'));
    try {
      expect(await auditOrigin(second)).toBe('pay.example.com/aar/audit');
    } finally {
      await second.store.close();
    }
  });

  it('is adopted from the latest checkpoint of a store that has none stored', async () => {
    const rt = await startTestRuntime({ dialect, config: { issuerUrl: 'https://old.example.com' } });
    cleanup.push(() => rt.close());
    await rt.app.inject({
      method: 'POST',
      url: '/v1/entities',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: { type: 'person', id: 'a', display_name: 'A' },
    });
    expect((await signCheckpoint(rt.ctx)).origin).toBe('old.example.com/audit');
    // as a store migrated from before 0007 would be: the checkpoint, and no stored origin (guards out of the way)
    if (dialect === 'postgres') {
      await rt.ctx.store.db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`delete from store_meta`.execute(trx);
      });
    } else {
      await sql`drop trigger store_meta_no_delete`.execute(rt.ctx.store.db);
      await sql`delete from store_meta`.execute(rt.ctx.store.db);
    }
    const adopted = await establishAuditOrigin(rt.ctx.store.db, { issuerUrl: 'https://new.example.com' }, 'now');
    expect(adopted).toBe('old.example.com/audit');
  });

  it('is the same for instances opening a new store at once (first writer wins)', async () => {
    const config = await freshStore();
    const location = (c: ReturnType<typeof config>) => ({
      databaseUrl: c.databaseUrl,
      sqliteFile: join(c.dataDir, 'aar.sqlite'),
    });
    const migrated = openStore(location(config('https://x.example.com')));
    await migrateStore(migrated);
    await migrated.close();
    const a = openStore(location(config('https://a.example.com')));
    const b = openStore(location(config('https://b.example.com')));
    try {
      const [oa, ob] = await Promise.all([
        establishAuditOrigin(a.db, { issuerUrl: 'https://a.example.com' }, 'now'),
        establishAuditOrigin(b.db, { issuerUrl: 'https://b.example.com' }, 'now'),
      ]);
      expect(oa).toBe(ob);
      expect(['a.example.com/audit', 'b.example.com/audit']).toContain(oa);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
