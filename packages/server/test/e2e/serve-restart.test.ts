/**
 * `aar serve` as a newcomer runs it: a real process on the embedded default (SQLite in the data dir), no other set-up.
 * A second start on the same data dir keeps every record and the same signing key.
 */
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer } from '../support/spawn-server.ts';

describe('aar serve on the embedded default', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-serve-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: 't' };
  const headers = { authorization: 'Bearer t', 'content-type': 'application/json' };

  it('keeps records and the signing key across a restart; keys are private files', async () => {
    const first = await spawnServer(env);
    const created = await fetch(`${first.base}/v1/entities`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'person', id: 'alice', display_name: 'Alice' }),
    });
    expect(created.status).toBe(201);
    const jwks1 = await (await fetch(`${first.base}/.well-known/jwks.json`)).json();
    expect(await first.stop()).toBe(0);

    const second = await spawnServer(env);
    try {
      const read = await fetch(`${second.base}/v1/entities/ns:entity:person:alice`, { headers });
      expect(read.status).toBe(200);
      expect((await read.json()).display_name).toBe('Alice');
      const jwks2 = await (await fetch(`${second.base}/.well-known/jwks.json`)).json();
      expect(jwks2).toEqual(jwks1);
      expect(jwks2.keys).toHaveLength(1);
      const events = await (await fetch(`${second.base}/v1/events`, { headers })).json();
      expect(events.items.map((e: { event_type: string }) => e.event_type)).toEqual([
        'ns.credential.created',
        'ns.entity.created',
      ]);
    } finally {
      await second.stop();
    }
    const keyDir = join(dataDir, 'keys');
    expect(statSync(keyDir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(keyDir)) expect(statSync(join(keyDir, f)).mode & 0o777).toBe(0o600);
  });
});
