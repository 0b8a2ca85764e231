/**
 * Issue 26: README's examples say `localhost`, so an SDK signs for `http://localhost:<port>` while the default public
 * URL was `http://127.0.0.1:<port>`: payload_signature_invalid. A server listening on loopback only, with no
 * AAR_PUBLIC_URL, accepts every loopback name of its issuer URL (`localhost`, `127.0.0.1`, `[::1]`, same port); set
 * AAR_PUBLIC_URL, or listen on another address, and only what is configured verifies.
 * Each server here is configured from the environment as `aar serve` is, on a real port (not port 0, whose public URL
 * is only known once it listens).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Env } from '../../src/config.ts';
import { ensureBootstrapToken } from '../../src/http/authenticate.ts';
import { openRuntime } from '../../src/runtime.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { deliverAuthorize, signAuthorize } from '../support/signed-authorize.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

interface Served {
  ctx: AppContext;
  app: FastifyInstance;
  port: number;
  dataDir: string;
}
const running: Served[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A service configured from `env` (plus a data dir, a bootstrap token and a free port), listening on 127.0.0.1. */
async function serve(env: Env): Promise<Served> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-loopback-'));
  const config = loadConfig({
    AAR_DATA_DIR: dataDir,
    AAR_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
    AAR_PORT: String(port),
    ...env,
  });
  const ctx = await openRuntime(config);
  const app = await buildApp(ctx);
  await ensureBootstrapToken(ctx);
  await app.listen({ host: '127.0.0.1', port });
  const served = { ctx, app, port, dataDir };
  running.push(served);
  return served;
}

afterEach(async () => {
  for (const s of running.splice(0)) {
    await s.app.close();
    await s.ctx.store.close();
    rmSync(s.dataDir, { recursive: true, force: true });
  }
});

const worlds = new WeakMap<Served, Awaited<ReturnType<typeof buildPurchaseWorld>>>();

async function authorizeSignedFor(served: Served, origin: string) {
  let world = worlds.get(served);
  if (!world) {
    world = await buildPurchaseWorld(`http://127.0.0.1:${served.port}`, ADMIN_TOKEN);
    worlds.set(served, world);
  }
  const signed = await signAuthorize(world.signer, origin, world.purchase(10));
  const res = await deliverAuthorize(signed, {
    to: `http://127.0.0.1:${served.port}`,
    host: new URL(origin).host,
    runtimeToken: world.runtimeToken,
  });
  expect(res.status).toBe(200);
  return res.body as { decision: string; reason: string };
}

describe('a loopback-bound server accepts its loopback names', () => {
  it.each(['localhost', '127.0.0.1', '[::1]'])('a request signed for http://%s:<port> is allowed', async (name) => {
    const served = await serve({});
    expect(served.ctx.config.publicUrls).toEqual(
      expect.arrayContaining([
        `http://127.0.0.1:${served.port}`,
        `http://localhost:${served.port}`,
        `http://[::1]:${served.port}`,
      ]),
    );
    const body = await authorizeSignedFor(served, `http://${name}:${served.port}`);
    expect(body).toMatchObject({ decision: 'allow_with_constraints' });
  });

  it('another port, or another host, is still refused', async () => {
    const served = await serve({});
    for (const origin of [`http://localhost:${served.port + 1}`, `http://other.example:${served.port}`]) {
      expect(await authorizeSignedFor(served, origin)).toMatchObject({
        decision: 'deny',
        reason: 'payload_signature_invalid',
      });
    }
  });
});

describe('only what is configured verifies', () => {
  it('with AAR_PUBLIC_URL set, a request signed for localhost is refused', async () => {
    const served = await serve({ AAR_PUBLIC_URL: 'https://pay.example.com' });
    expect(served.ctx.config.publicUrls).toEqual(['https://pay.example.com']);
    expect(await authorizeSignedFor(served, `http://localhost:${served.port}`)).toMatchObject({
      decision: 'deny',
      reason: 'payload_signature_invalid',
    });
    expect(await authorizeSignedFor(served, 'https://pay.example.com')).toMatchObject({
      decision: 'allow_with_constraints',
    });
  });

  it('AAR_PUBLIC_URL naming 127.0.0.1 itself adds no other name', async () => {
    const port = 18_080;
    expect(
      loadConfig({ AAR_PORT: String(port), AAR_PUBLIC_URL: `http://127.0.0.1:${port}` }, { dataDir: tmpdir() })
        .publicUrls,
    ).toEqual([`http://127.0.0.1:${port}`]);
  });

  it('a server listening on another address, or with an issuer URL of another host, adds no loopback name', () => {
    expect(loadConfig({ AAR_HOST: '0.0.0.0', AAR_PORT: '8080' }).publicUrls).toEqual(['http://0.0.0.0:8080']);
    expect(loadConfig({ AAR_HOST: '10.1.2.3', AAR_PORT: '8080' }).publicUrls).toEqual(['http://10.1.2.3:8080']);
    expect(loadConfig({ AAR_ISSUER_URL: 'https://pay.example.com' }).publicUrls).toEqual(['https://pay.example.com']);
  });

  it('a server listening on ::1 has a valid default URL and its loopback names', () => {
    expect(loadConfig({ AAR_HOST: '::1', AAR_PORT: '8080' }).publicUrls).toEqual([
      'http://[::1]:8080',
      'http://127.0.0.1:8080',
      'http://localhost:8080',
    ]);
  });
});
