/**
 * The payload-artefact operations as the contract frames them: each one `x-preview: true` in the OpenAPI document
 * with its roles and problem codes (CONTRACT section 22), and the POSTs idempotent (CONTRACT section 7): the same
 * `Idempotency-Key` and body replays the first answer, writing nothing more; another body under that key is 422.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import {
  buildArtefactWorld,
  digestOf,
  rowCounts,
  signStatement,
  AGENT,
  type ArtefactWorld,
} from './support/artefact-world.ts';

const dialects = await testDialects();

describe.each(dialects)('payload artefact operations on %s', (dialect) => {
  let rt: TestRuntime;
  let w: ArtefactWorld;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildArtefactWorld(base, ADMIN_TOKEN);
  }, 60_000);
  afterAll(async () => rt?.close());

  it('are each x-preview in the OpenAPI document', () => {
    const paths = (
      openApiDocument(rt.app) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> }
    ).paths;
    const operations = [
      paths['/v1/payload-artefacts']?.post,
      paths['/v1/payload-artefacts']?.get,
      paths['/v1/payload-artefacts/{id}']?.get,
      paths['/v1/payload-artefacts/{id}/execute']?.post,
    ];
    for (const op of operations) {
      expect(op, 'operation').toBeDefined();
      expect(op!['x-preview']).toBe(true);
      expect(String(op!.description)).toMatch(/^PREVIEW/);
    }
  });

  it('replays a POST with the same Idempotency-Key and body, and refuses another body under that key', async () => {
    const decisionId = await w.allowed(4);
    const digest = digestOf('idempotent payload');
    const fields = { kind: 'checkout', digest, policy_decision_id: decisionId };
    const body = { ...fields, signature: await signStatement(w.privateJwk, AGENT, fields) };
    const key = { 'idempotency-key': 'artefact-replay-1' };
    const first = await w.call('POST', '/v1/payload-artefacts', body, w.runtimeToken, key);
    expect(first.status).toBe(201);
    const before = await rowCounts(rt.ctx);
    const again = await w.call('POST', '/v1/payload-artefacts', body, w.runtimeToken, key);
    expect(again.status).toBe(201);
    expect(again.body.payload_artefact_id).toBe(first.body.payload_artefact_id);
    expect(await rowCounts(rt.ctx)).toEqual(before);
    const other = await w.call('POST', '/v1/payload-artefacts', { ...body, kind: 'basket' }, w.runtimeToken, key);
    expect(other.status).toBe(422);
    expect(await rowCounts(rt.ctx)).toEqual(before);

    const execKey = { 'idempotency-key': 'artefact-execute-1' };
    const path = `/v1/payload-artefacts/${first.body.payload_artefact_id}/execute`;
    const executed = await w.call('POST', path, { outcome: 'executed' }, w.runtimeToken, execKey);
    expect(executed.status).toBe(200);
    const afterExecute = await rowCounts(rt.ctx);
    // the retry of a lost answer gets the same answer, not a refusal, and writes no refusal event
    const retried = await w.call('POST', path, { outcome: 'executed' }, w.runtimeToken, execKey);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(executed.body);
    expect(await rowCounts(rt.ctx)).toEqual(afterExecute);
  });
});
