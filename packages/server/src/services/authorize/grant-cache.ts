/**
 * What an instance caches about grants, for authorize: the candidate grants of (actor, principal, instrument) and
 * grant rows by id (with their revocation state), so that a delegated chain costs one small query instead of one per
 * link; and the other slowly changing facts authorize reads outside its transaction (entities with their agent keys,
 * card tokens, merchants, risk states: `fact`/`storeFact`), which migration 0009 counts in the same version. Several instances may share one PostgreSQL; correctness must not depend on when (or whether) a notification
 * arrives. So:
 *
 * INVARIANTS
 * - Every change of a grant (insert, update, revocation) bumps `grant_version` in the changing transaction
 *   (migration 0005, grant-version.ts).
 * - A reader reads the version FIRST, then uses the cache only if it was filled at that same version; data is read
 *   after its version, so cached data is never older than its tag. Equal versions mean no grant changed since:
 *   an authorize that starts after a revoke returned reads a newer version and so never uses pre-revoke data.
 * - Data read at version V is stored only while the cache is at V (a reader that raced a newer version drops its
 *   data rather than tag stale rows as fresh).
 * - The NOTIFY on `aar_grants_<schema>` (PostgreSQL) only empties the cache early; the version check decides.
 */
import pg from 'pg';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { GrantRow } from '../grants/grant-rows.ts';
import { grantsChannel, readGrantVersion } from '../grants/grant-version.ts';

/** Bounds (a row holds its signed link, ~1.5 KB): past one, that map starts over. */
const MAX_ROWS = 20_000;
const MAX_KEYS = 10_000;
const MAX_FACTS = 50_000;
const RECONNECT_MS = 1_000;

export interface GrantCacheStats {
  version: number;
  hits: number;
  misses: number;
  notifications: number;
  listening: boolean;
}

export class GrantCache {
  readonly #ctx: AppContext;
  #version = -1;
  readonly #candidates = new Map<string, GrantRow[]>();
  readonly #rows = new Map<string, GrantRow>();
  /** `<kind>\n<id>` → the row read at #version; null caches an absence (an insert moves the version too) */
  readonly #facts = new Map<string, unknown>();
  #listener: pg.Client | undefined;
  #stopped = false;
  #reconnect: NodeJS.Timeout | undefined;
  readonly stats: GrantCacheStats = { version: -1, hits: 0, misses: 0, notifications: 0, listening: false };

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** Subscribes to grant changes on PostgreSQL (a no-op on SQLite, where the version check alone serves). */
  async start(): Promise<void> {
    if (this.#ctx.store.dialect !== 'postgres' || !this.#ctx.config.databaseUrl) return;
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(this.#ctx.store.db);
    await this.#listen(grantsChannel(rows[0]?.schema ?? 'public'));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#reconnect);
    const listener = this.#listener;
    this.#listener = undefined;
    this.stats.listening = false;
    await listener?.end().catch(() => undefined);
  }

  /** The current grant version, read from the store; empties the cache when it moved. */
  async currentVersion(): Promise<number> {
    return this.atVersion(await readGrantVersion(this.#ctx.store.db));
  }

  /** A version the caller read itself, before any fact (request-grant-version.ts); empties the cache when it moved. */
  atVersion(version: number): number {
    if (version !== this.#version) this.#reset(version);
    return version;
  }

  candidates(key: string, version: number): GrantRow[] | undefined {
    const hit = version === this.#version ? this.#candidates.get(key) : undefined;
    if (hit) this.stats.hits++;
    else this.stats.misses++;
    return hit;
  }

  storeCandidates(key: string, version: number, rows: GrantRow[]): void {
    if (version !== this.#version) return;
    if (this.#candidates.size >= MAX_KEYS) this.#candidates.clear();
    this.#candidates.set(key, rows);
    for (const row of rows) this.storeRow(version, row);
  }

  row(grantId: string, version: number): GrantRow | undefined {
    return version === this.#version ? this.#rows.get(grantId) : undefined;
  }

  storeRow(version: number, row: GrantRow): void {
    if (version !== this.#version) return;
    if (this.#rows.size >= MAX_ROWS) this.#rows.clear();
    this.#rows.set(row.grant_id, row);
  }

  /** The fact `kind`/`id` cached at `version`: `{ row }` (row null when absent), or undefined when not cached. */
  fact<Row>(kind: string, id: string, version: number): { row: Row | null } | undefined {
    if (version !== this.#version) return undefined;
    const key = `${kind}\n${id}`;
    const row = this.#facts.get(key);
    if (row === undefined) return undefined;
    return { row: row as Row | null };
  }

  storeFact(kind: string, id: string, version: number, row: unknown): void {
    if (version !== this.#version) return;
    if (this.#facts.size >= MAX_FACTS) this.#facts.clear();
    this.#facts.set(`${kind}\n${id}`, row ?? null);
  }

  /** Forgets everything; the next reader reloads at whatever version it reads. */
  invalidate(): void {
    this.#reset(-1);
  }

  #reset(version: number): void {
    this.#candidates.clear();
    this.#rows.clear();
    this.#facts.clear();
    this.#version = version;
    this.stats.version = version;
  }

  async #listen(channel: string): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({ connectionString: this.#ctx.config.databaseUrl });
    const retry = () => {
      this.stats.listening = false;
      this.invalidate();
      if (this.#listener === client) this.#listener = undefined;
      void client.end().catch(() => undefined);
      if (!this.#stopped) this.#reconnect = setTimeout(() => void this.#listen(channel), RECONNECT_MS);
    };
    client.on('error', retry);
    client.on('notification', (message) => {
      if (message.channel !== channel) return;
      this.stats.notifications++;
      this.invalidate();
    });
    try {
      await client.connect();
      await client.query(`listen "${channel.replaceAll('"', '""')}"`);
      if (this.#stopped) {
        await client.end();
        return;
      }
      this.#listener = client;
      this.stats.listening = true;
      // a change may have slipped in between our last version read and the LISTEN: start clean
      this.invalidate();
    } catch {
      retry();
    }
  }
}

export function candidatesKey(actor: string, principal: string, instrument: string | undefined): string {
  return `${actor}\n${principal}\n${instrument ?? ''}`;
}
