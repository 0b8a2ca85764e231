/**
 * Agent metadata binding over real HTTP on SQLite and PostgreSQL (issue 30, aar-decide/1.5.0): the agent signs its
 * model, software version and operator with its own registered key (POST /v1/entities/{id}/metadata-attestations);
 * a purchase presenting that metadata is allowed and the decision map's actor node and the evidence pack bind it;
 * other metadata is denied `agent_metadata_mismatch`, as is metadata presented before anything was attested. An
 * attestation signed by another key, naming another agent, stale, or older than the current one is refused and
 * writes nothing. The pack verifies offline with the TS SDK, `aar verify-pack` in a process with no store, and the
 * server; an edited attestation in the pack fails the `agent_metadata` check.
 */
import { execFile } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signDocument } from '@aar/core';
import { verifyEvidencePack } from '@aar/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AAR_BIN } from '../support/spawn-server.ts';
import { testDialects } from '../support/dialects.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const AGENT = 'ns:entity:agent:shopper-1';
const PATH = `/v1/entities/${AGENT}/metadata-attestations`;
const METADATA = { model: 'gpt-shop-7', software_version: 'shopper/2.4.1', operator: 'Example Agents GmbH' };

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

async function attestation(key: KeyObject, fields: Record<string, unknown> = {}) {
  const doc = {
    schema_version: 'ns.agent_metadata_attestation.v1',
    agent_entity_id: AGENT,
    ...METADATA,
    issued_at: new Date().toISOString(),
    ...fields,
  };
  return signDocument(doc, { keyId: AGENT, sign: async (m) => new Uint8Array(nodeSign(null, m, key)) });
}

for (const dialect of await testDialects()) {
  describe(`agent metadata binding (${dialect})`, () => {
    let rt: TestRuntime;
    let world: World;
    let agentKey: KeyObject;

    const counts = async () => {
      const db = rt.ctx.store.db;
      const n = async (table: 'agent_metadata_attestations' | 'events' | 'audit_entries') =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      return {
        rows: await n('agent_metadata_attestations'),
        events: await n('events'),
        audit: await n('audit_entries'),
      };
    };

    beforeAll(async () => {
      rt = await startTestRuntime({ dialect });
      const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
      world = await buildPurchaseWorld(base, ADMIN_TOKEN);
      agentKey = createPrivateKey({ key: world.privateJwk, format: 'jwk' });
    });
    afterAll(async () => rt?.close());

    it('denies metadata presented before the agent attested any', async () => {
      const res = await world.authorize(world.purchase(10, { agent_metadata: METADATA }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ decision: 'deny', reason: 'agent_metadata_mismatch' });
      const actor = res.body.decision_map.nodes.find((n: { type: string }) => n.type === 'actor');
      expect(actor).toEqual({ type: 'actor', ref: AGENT, short: 'agent metadata mismatch' });
    });

    it('refuses an attestation signed by another key, and writes nothing', async () => {
      const before = await counts();
      const other = generateKeyPairSync('ed25519').privateKey;
      const res = await world.call('POST', PATH, await attestation(other), world.runtimeToken);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_signature', errors: [{ path: '/signature' }] });
      // another agent's id, a stale statement, an edited one: each refused
      const named = await world.call(
        'POST',
        PATH,
        await attestation(agentKey, { agent_entity_id: 'ns:entity:agent:other' }),
        world.runtimeToken,
      );
      expect(named.status).toBe(400);
      expect(named.body.errors[0].path).toBe('/agent_entity_id');
      const stale = await world.call(
        'POST',
        PATH,
        await attestation(agentKey, { issued_at: new Date(Date.now() - 3_600_000).toISOString() }),
        world.runtimeToken,
      );
      expect(stale.status).toBe(400);
      expect(stale.body.errors[0].path).toBe('/issued_at');
      const edited = { ...(await attestation(agentKey)), model: 'another-model' };
      expect((await world.call('POST', PATH, edited, world.runtimeToken)).status).toBe(400);
      const extra = { ...(await attestation(agentKey)), key: 'x' };
      expect((await world.call('POST', PATH, extra, world.runtimeToken)).status).toBe(400);
      expect(await counts()).toEqual(before);
    });

    it('binds attested metadata into the decision map and the evidence pack, verified offline', async () => {
      const before = await counts();
      const doc = await attestation(agentKey);
      const accepted = await world.call('POST', PATH, doc, world.runtimeToken);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
      expect(accepted.body).toMatchObject({ agent_entity_id: AGENT, ...METADATA, document: doc });
      expect(accepted.body.digest).toMatch(/^sha-256:[A-Za-z0-9_-]{43}$/);
      const after = await counts();
      expect(after.rows).toBe(before.rows + 1);
      expect(after.events).toBe(before.events + 1);
      const events = await world.must('GET', '/v1/events?event_type=ns.entity.metadata_attested');
      expect(events.items?.at(-1)?.data ?? events.data?.at(-1)?.data).toMatchObject({
        attestation_id: accepted.body.attestation_id,
        digest: accepted.body.digest,
      });
      const current = await world.must('GET', `${PATH}/current`);
      expect(current.attestation_id).toBe(accepted.body.attestation_id);
      // the same document again, or an older one, cannot come back
      expect((await world.call('POST', PATH, doc, world.runtimeToken)).status).toBe(409);

      const allowed = await world.authorize(world.purchase(10, { agent_metadata: METADATA }));
      expect(allowed.body).toMatchObject({ decision: 'allow_with_constraints' });
      const actor = allowed.body.decision_map.nodes.find((n: { type: string }) => n.type === 'actor');
      expect(actor).toEqual({
        type: 'actor',
        ref: AGENT,
        short: 'agent active',
        agent_metadata: METADATA,
        attestation_digest: accepted.body.digest,
      });

      const pack = await world.must('GET', `/v1/evidence-packs/${allowed.body.evidence_refs[0]}`);
      expect(pack.engine_version).toBe('aar-decide/1.5.0');
      expect(pack.request.agent_metadata).toEqual(METADATA);
      expect(pack.snapshot.agent_metadata).toMatchObject({ ...METADATA, digest: accepted.body.digest });
      expect(pack.agent_metadata_attestation).toEqual(doc);
      expectSchemaValid(pack);
      const jwks = await world.must('GET', '/.well-known/jwks.json');
      const offline = await verifyEvidencePack(pack, jwks);
      expect(offline.valid, JSON.stringify(offline.checks)).toBe(true);
      expect(offline.checks.find((c) => c.check === 'agent_metadata')).toEqual({
        check: 'agent_metadata',
        valid: true,
      });
      const served = await world.must('POST', '/v1/evidence-packs/verify', pack);
      expect(served.valid).toBe(true);
      const dir = mkdtempSync(join(tmpdir(), 'aar-metadata-pack-'));
      try {
        writeFileSync(join(dir, 'pack.json'), JSON.stringify(pack));
        writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
        const cli = await new Promise<{ code: number; stdout: string }>((resolve) => {
          execFile(
            process.execPath,
            [AAR_BIN, 'verify-pack', join(dir, 'pack.json'), '--jwks', join(dir, 'jwks.json'), '--json'],
            { env: { PATH: process.env.PATH ?? '', HOME: dir, AAR_DATA_DIR: join(dir, 'none'), AAR_FROM_SOURCE: '1' } },
            (error, stdout) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout }),
          );
        });
        expect(cli.code, cli.stdout).toBe(0);
        const result = JSON.parse(cli.stdout.trim()) as {
          valid: boolean;
          checks: Array<{ check: string; valid: boolean }>;
        };
        expect(result.checks.find((c) => c.check === 'agent_metadata')?.valid).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }

      // another document in the pack, or one signed by another key, fails the named check
      const edited = structuredClone(pack);
      edited.agent_metadata_attestation.model = 'another-model';
      expect((await verifyEvidencePack(edited, jwks)).checks.find((c) => c.check === 'agent_metadata')).toMatchObject({
        valid: false,
        failure: 'agent_metadata_digest_mismatch',
      });
      const dropped = structuredClone(pack);
      delete dropped.agent_metadata_attestation;
      expect((await verifyEvidencePack(dropped, jwks)).checks.find((c) => c.check === 'agent_metadata')).toMatchObject({
        valid: false,
        failure: 'agent_metadata_missing',
      });
    });

    it('denies other metadata agent_metadata_mismatch; a request without metadata is not judged by it', async () => {
      const other = await world.authorize(
        world.purchase(10, { agent_metadata: { ...METADATA, software_version: 'shopper/2.5.0' } }),
      );
      expect(other.body).toMatchObject({ decision: 'deny', reason: 'agent_metadata_mismatch' });
      const pack = await world.must('GET', `/v1/evidence-packs/${other.body.evidence_refs[0]}`);
      const entities = pack.decision.diagnostics.checks.find((c: { check: string }) => c.check === 'entities');
      expect(entities).toEqual({
        check: 'entities',
        outcome: 'fail',
        reason: 'agent_metadata_mismatch',
        detail: 'agent metadata software_version `shopper/2.5.0` is not the attested one',
      });
      const jwks = await world.must('GET', '/.well-known/jwks.json');
      expect((await verifyEvidencePack(pack, jwks)).valid).toBe(true);

      const plain = await world.authorize(world.purchase(10));
      expect(plain.body).toMatchObject({ decision: 'allow_with_constraints' });
      const actor = plain.body.decision_map.nodes.find((n: { type: string }) => n.type === 'actor');
      expect(actor.agent_metadata).toEqual(METADATA);

      // a newer attestation becomes the current one at once
      const next = { ...METADATA, software_version: 'shopper/2.5.0' };
      const res = await world.call(
        'POST',
        PATH,
        await attestation(agentKey, { ...next, issued_at: new Date(Date.now() + 1000).toISOString() }),
        world.runtimeToken,
      );
      expect(res.status).toBe(201);
      expect((await world.authorize(world.purchase(10, { agent_metadata: next }))).body.decision).toBe(
        'allow_with_constraints',
      );
      expect((await world.authorize(world.purchase(10, { agent_metadata: METADATA }))).body.reason).toBe(
        'agent_metadata_mismatch',
      );
    });
  });
}
