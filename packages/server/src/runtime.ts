/**
 * Opens everything an instance needs, in order: store, migrations, signing keys. Used by `aar serve`, the other
 * CLI commands and the tests, so they all see the same service.
 */
import { defaultUuid, type AppContext } from './app-context.ts';
import { systemClock, type Clock } from './clock.ts';
import type { AppConfig } from './config.ts';
import { auditOrigin } from './audit/audit-origin.ts';
import { openKeyRing } from './keys/key-ring.ts';
import { seedReferenceListings } from './services/marketplace/seed-reference-listings.ts';
import { seedPolicyContent } from './services/policy/seed-policy-content.ts';
import { migrateStore, openStore, type DurabilityBarrierOptions } from './store/index.ts';
import { WriteQueue } from './store/write-queue.ts';
import { join } from 'node:path';

export interface OpenRuntimeOptions {
  clock?: Clock;
  newUuid?: () => string;
  /** PostgreSQL schema to use (tests isolate themselves in a fresh schema) */
  migrate?: boolean;
  /** how the SQLite log is synced and checkpointed (tests inject a slow or failing sync) */
  durability?: DurabilityBarrierOptions;
}

export async function openRuntime(config: AppConfig, options: OpenRuntimeOptions = {}): Promise<AppContext> {
  const store = openStore({ databaseUrl: config.databaseUrl, sqliteFile: join(config.dataDir, 'aar.sqlite') });
  try {
    if (options.migrate !== false) await migrateStore(store);
    const clock = options.clock ?? systemClock;
    const keys = await openKeyRing({ dataDir: config.dataDir, store, clock });
    const newUuid = options.newUuid ?? defaultUuid;
    const ctx: AppContext = { config, store, clock, keys, newUuid, writer: new WriteQueue(store, clock, newUuid) };
    // the log's origin is fixed at the store's first open and read from it ever after (audit/audit-origin.ts)
    if (options.migrate !== false) await auditOrigin(ctx);
    // the reference listings, so a new deployment's marketplace search is not empty (idempotent)
    if (options.migrate !== false) await seedReferenceListings(ctx);
    // the shipped dictionaries and rule packs, published and signed (idempotent; a bad shipped file is reported)
    if (options.migrate !== false) {
      for (const { file, problems } of (await seedPolicyContent(ctx)).refused) {
        process.stderr.write(`aar: shipped policy/${file} not seeded: ${problems.slice(0, 3).join('; ')}\n`);
      }
    }
    // start-up ran under synchronous FULL; from here commits are made durable off the event loop (store/wal-barrier.ts)
    store.useDurabilityBarrier(options.durability);
    return ctx;
  } catch (error) {
    await store.close();
    throw error;
  }
}
