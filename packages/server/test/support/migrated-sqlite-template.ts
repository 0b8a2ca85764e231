/**
 * A migrated, empty SQLite store to copy into a test's fresh data dir, so that each test runtime does not run every
 * migration again: on SQLite each DDL statement commits on its own under `synchronous = FULL`, ~230 fsyncs per new
 * store, which on a busy disk cost 0.2-1.3 s per runtime (the largest part of a test runtime's start).
 * Invariants:
 * - The template is made by the real openStore + migrateStore and closed cleanly (SQLite checkpoints the log and
 *   removes the -wal file), so a copy is the very file a fresh migration leaves: schema, triggers, the migrations'
 *   own rows (audit_state, the kysely_migration bookkeeping). Nothing per deployment is in it: keys, the audit
 *   origin, the reference listings and the shipped policy content are made by openRuntime on each copy, as on a new
 *   store. openRuntime still runs migrateStore on the copy (it finds every migration applied, as at a restart).
 * - It is keyed by a digest of every source file of src/store/ (migrations, open-store, schema): a changed migration
 *   makes a new template; never a stale one.
 * - Shared by the test processes of one checkout (node_modules/.cache/aar-test-store/): made in a private temp dir
 *   and renamed into place (atomic), so a reader copies a whole file or none; two processes making it at once both
 *   make a valid one, the last rename wins. Anything going wrong falls back to no template (a migrated fresh store),
 *   as does AAR_TEST_STORE_TEMPLATE=off (to compare, or to run every test runtime's migrations from empty).
 * The migrations themselves stay tested from empty by the storage suite (store-contract, audit-origin, ...), which
 * calls migrateStore directly on both databases, and by every spawned `aar serve`.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateStore, openStore } from '../../src/store/index.ts';

const STORE_SOURCES = fileURLToPath(new URL('../../src/store/', import.meta.url));
const CACHE = fileURLToPath(new URL('../../../../node_modules/.cache/aar-test-store/', import.meta.url));

let template: Promise<string | undefined> | undefined;

/** Copies the migrated template to `file` (which must not exist); false when there is none (then migrate as usual). */
export async function copyMigratedTemplate(file: string): Promise<boolean> {
  if (process.env.AAR_TEST_STORE_TEMPLATE === 'off') return false;
  template ??= makeTemplate().catch(() => undefined);
  const from = await template;
  if (!from || existsSync(file)) return false;
  try {
    copyFileSync(from, file);
    return true;
  } catch {
    rmSync(file, { force: true });
    return false;
  }
}

async function makeTemplate(): Promise<string | undefined> {
  const target = join(CACHE, `${storeDigest()}.sqlite`);
  if (existsSync(target)) return target;
  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(CACHE, 'making-'));
  try {
    const file = join(work, 'aar.sqlite');
    const store = openStore({ sqliteFile: file });
    try {
      await migrateStore(store);
    } finally {
      await store.close();
    }
    // a clean close leaves one file; anything else is not a file to copy
    if (existsSync(`${file}-wal`) || existsSync(`${file}-journal`)) return undefined;
    renameSync(file, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function storeDigest(): string {
  const hash = createHash('sha256');
  const files = readdirSync(STORE_SOURCES, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .sort();
  for (const f of files)
    hash
      .update(`${f}\n`)
      .update(readFileSync(join(STORE_SOURCES, f)))
      .update('\n');
  return hash.digest('base64url').slice(0, 32);
}
