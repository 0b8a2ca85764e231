/**
 * The origin of this log, as checkpoints name it (C2SP style: a schema-less URL, e.g. `aar.example.com/audit`).
 * It is fixed when the store is created and kept in it (`store_meta.audit_origin`, migration 0007), so `aar serve`,
 * `aar audit-serve` and every instance on one database sign checkpoints of the same origin whatever their host,
 * port or issuer URL, and a pack keeps verifying whichever process signed its checkpoint.
 * - A store with checkpoints but no stored origin (made before 0007) adopts its latest checkpoint's origin.
 * - A new store takes the issuer URL's host and path plus `/audit` at its first open.
 * - First writer wins: insert-if-absent, then read back, so instances opening a new store at once agree.
 * A verifier compares the origin with the log it expects: a checkpoint of another origin proves nothing about this
 * log, even when the same key signed it.
 */
import { sql, type Kysely } from 'kysely';
import type { AppContext } from '../app-context.ts';
import type { AppConfig } from '../config.ts';
import type { Database } from '../store/index.ts';

export const AUDIT_ORIGIN_KEY = 'audit_origin';

/** The origin a new store takes from its issuer URL. */
export function originFromIssuer(config: Pick<AppConfig, 'issuerUrl'>): string {
  const url = new URL(config.issuerUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/audit`;
}

const resolved = new WeakMap<Kysely<Database>, Promise<string>>();

/** The log's origin, as stored; fixed on the store's first open (read once per store handle). */
export function auditOrigin(ctx: Pick<AppContext, 'store' | 'config' | 'clock'>): Promise<string> {
  const db = ctx.store.db;
  let origin = resolved.get(db);
  if (!origin) {
    origin = establishAuditOrigin(db, ctx.config, ctx.clock.now().toISOString());
    origin.catch(() => resolved.delete(db));
    resolved.set(db, origin);
  }
  return origin;
}

/** Reads the stored origin, fixing it first when the store has none (insert-if-absent, then read back). */
export async function establishAuditOrigin(
  db: Kysely<Database>,
  config: Pick<AppConfig, 'issuerUrl'>,
  nowIso: string,
): Promise<string> {
  const stored = await readStoredOrigin(db);
  if (stored !== undefined) return stored;
  const latest = await db
    .selectFrom('audit_checkpoints')
    .select('document')
    .orderBy('size', 'desc')
    .limit(1)
    .executeTakeFirst();
  const adopted = latest ? (JSON.parse(latest.document) as { origin?: unknown }).origin : undefined;
  const origin = typeof adopted === 'string' && adopted.length > 0 ? adopted : originFromIssuer(config);
  // NOT EXISTS rather than ON CONFLICT: the SQLite guard refuses any insert of an existing key (write-once-guards)
  await sql`insert into store_meta (key, value, created_at)
    select ${AUDIT_ORIGIN_KEY}, ${origin}, ${nowIso}
    where not exists (select 1 from store_meta where key = ${AUDIT_ORIGIN_KEY})`
    .execute(db)
    .catch(async (error: unknown) => {
      // a concurrent first open (PostgreSQL) won the primary key: its origin is the log's
      if ((await readStoredOrigin(db)) === undefined) throw error;
    });
  const fixed = await readStoredOrigin(db);
  if (fixed === undefined) throw new Error('the audit origin could not be stored');
  return fixed;
}

async function readStoredOrigin(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db.selectFrom('store_meta').select('value').where('key', '=', AUDIT_ORIGIN_KEY).executeTakeFirst();
  return row?.value;
}
