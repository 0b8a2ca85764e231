/**
 * The audit chain alone (CONTRACT section 8): `aar audit-serve` on the same store and configuration as `aar serve`,
 * with `POST /append` and `GET /verify` at its root, behind the project's gateway (bearer tokens and roles,
 * problem+json). In-process with inject, and once as a real process on the data dir a main server wrote.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDocument, verifyInclusionProofJson } from '@aar/core';
import { buildAuditApp } from '../../src/audit/audit-app.ts';
import { AAR_BIN, freePort } from '../support/spawn-server.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('the audit app', () => {
  let rt: TestRuntime;
  let app: FastifyInstance;
  beforeAll(async () => {
    rt = await startTestRuntime();
    app = await buildAuditApp(rt.ctx);
  });
  afterAll(async () => {
    await app?.close();
    await rt?.close();
  });

  it('appends at POST /append and verifies at GET /verify', async () => {
    const appended = await app.inject({
      method: 'POST',
      url: '/append',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: { kind: 'ops.deploy', subject_ref: 'release-42', record: { version: '42' } },
    });
    expect(appended.statusCode).toBe(201);
    const { index } = appended.json();
    const verify = await app.inject({ method: 'GET', url: '/verify', headers: auth() });
    expect(verify.json()).toMatchObject({ valid: true, size: index + 1, checked: index + 1 });
    // the same log the main server writes
    expect((await rt.app.inject({ method: 'GET', url: '/v1/audit/verify', headers: auth() })).json().size).toBe(
      index + 1,
    );
    const checkpoint = (await app.inject({ method: 'POST', url: '/checkpoint', headers: auth() })).json();
    const jwks = (await app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect((await verifyDocument(checkpoint, jwks)).valid).toBe(true);
    const proof = (
      await app.inject({ method: 'GET', url: `/proofs/inclusion?index=${index}`, headers: auth() })
    ).json();
    expect(verifyInclusionProofJson(proof, checkpoint.root_hash)).toEqual({ valid: true });
  });

  it('answers problem+json through the gateway, and serves nothing else', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/verify' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await app.inject({ method: 'GET', url: '/v1/entities', headers: auth() })).json().code).toBe(
      'route_not_found',
    );
    const bad = await app.inject({
      method: 'POST',
      url: '/append',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{"kind":"a","kind":"b","subject_ref":"s","record":1}',
    });
    expect(bad.json().code).toBe('invalid_json');
  });
});

describe('aar audit-serve', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-audit-serve-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the chain of a data dir as a process of its own', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [AAR_BIN, 'audit-serve', '--port', String(port), '--data-dir', dataDir], {
      env: { ...process.env, AAR_LOG_LEVEL: 'warn', AAR_BOOTSTRAP_TOKEN: 'audit-t' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`audit-serve exited: ${output}`);
        if (
          await fetch(`${base}/healthz`).then(
            (r) => r.ok,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const headers = { authorization: 'Bearer audit-t', 'content-type': 'application/json' };
      const appended = await fetch(`${base}/append`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ kind: 'ops.note', subject_ref: 'n-1', record: 'hello' }),
      });
      expect(appended.status).toBe(201);
      const verify = await (await fetch(`${base}/verify`, { headers })).json();
      expect(verify).toMatchObject({ valid: true, size: 2 });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) =>
        child.exitCode === null && child.signalCode === null ? child.once('exit', resolve) : resolve(null),
      );
    }
  });
});
