/**
 * Migration 0024 (token scopes) on each database: a token made before it reads `[]` after it (it keeps exactly what
 * it could do), and a token inserted without scopes afterwards defaults to `[]`.
 */
import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { parseStoredScopes } from '../../src/http/token-scopes.ts';
import { migrateStore, openStore, type Store } from '../../src/store/index.ts';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';

const dialects = await testDialects();
const T = '2026-11-20T00:00:00.000Z';

describe.each(dialects)('migration 0024-token-scopes on %s', (dialect) => {
  let store: Store | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await store?.close();
    await drop?.();
  });

  it('gives existing tokens no scope and new rows `[]` by default', async () => {
    let schemaName: string | undefined;
    if (dialect === 'postgres') {
      const schema = await freshPgSchema();
      drop = schema.drop;
      schemaName = new URL(schema.url).searchParams.get('options')?.split('=')[1];
      store = openStore({ databaseUrl: schema.url });
    } else {
      store = openStore({});
    }
    const migrator = new Migrator({
      db: store.db,
      provider: migrationProvider(store.dialect),
      ...(schemaName ? { migrationTableSchema: schemaName } : {}),
    });
    const before = await migrator.migrateTo('0023-mandates');
    expect(before.error).toBeUndefined();
    const token = (id: string) => ({
      token_id: `ns:token:${id}`,
      token_hash: id.padEnd(64, '0'),
      role: 'runtime' as const,
      principal_entity_id: null,
      label: null,
      created_at: T,
      revoked_at: null,
    });
    // the table as it was before 0024: no scopes column yet
    await store.db.insertInto('api_tokens').values(token('old')).execute();
    await migrateStore(store);
    await store.db.insertInto('api_tokens').values(token('new')).execute();
    const rows = await store.db.selectFrom('api_tokens').select(['token_id', 'scopes']).orderBy('seq').execute();
    expect(rows).toEqual([
      { token_id: 'ns:token:old', scopes: '[]' },
      { token_id: 'ns:token:new', scopes: '[]' },
    ]);
    expect(parseStoredScopes(rows[0]?.scopes)).toEqual([]);
  });
});

describe('stored scopes read fail closed', () => {
  it('reads damaged or unknown values as no scope', () => {
    expect(parseStoredScopes('["memory.read"]')).toEqual(['memory.read']);
    expect(parseStoredScopes('not json')).toEqual([]);
    expect(parseStoredScopes('["memory.read","root"]')).toEqual([]);
    expect(parseStoredScopes('{"memory.read":true}')).toEqual([]);
    expect(parseStoredScopes(null)).toEqual([]);
  });
});
