/**
 * The audit routes of CONTRACT section 11 on the main server: entries with their exact bytes, inclusion and
 * consistency proofs that verify against signed checkpoints, checkpoints that never contradict, the outside append,
 * roles, and the refusals of SECURITY.md "Audit and evidence" (index beyond the tree, size1 > size2, the empty tree,
 * a swapped inclusion proof, a checkpoint that would contradict the last one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditRecordDigest,
  leafHash,
  utf8Encode,
  encodeBase64,
  verifyConsistencyProofJson,
  verifyDocument,
  verifyInclusionProofJson,
  type Jwks,
} from '@aar/core';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
let jwks: Jwks;
let auditor: string;
let runtime: string;

const get = (url: string, token?: string) =>
  rt.app.inject({ method: 'GET', url, headers: token ? auth(token) : auth() });
const post = (url: string, payload?: unknown, token?: string) =>
  rt.app.inject({
    method: 'POST',
    url,
    headers: {
      ...(token ? auth(token) : auth()),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const createPerson = (id: string) => post('/v1/entities', { type: 'person', id, display_name: id });

beforeAll(async () => {
  rt = await startTestRuntime();
  auditor = (await post('/v1/tokens', { role: 'auditor' })).json().token;
  runtime = (await post('/v1/tokens', { role: 'runtime' })).json().token;
  for (let i = 0; i < 9; i++) await createPerson(`p${i}`);
  jwks = (await get('/.well-known/jwks.json')).json();
});
afterAll(async () => rt?.close());

describe('audit routes', () => {
  it('serves each entry with its exact bytes and leaf hash; 404 beyond the tree', async () => {
    const size = (await get('/v1/audit/verify', auditor)).json().size as number;
    expect(size).toBeGreaterThanOrEqual(12);
    for (let i = 0; i < size; i++) {
      const res = await get(`/v1/audit/entries/${i}`, auditor);
      expect(res.statusCode).toBe(200);
      const { index, leaf_hash, entry, audit_id } = res.json();
      expect(index).toBe(i);
      expect(leaf_hash).toBe(encodeBase64(leafHash(utf8Encode(entry))));
      expect(JSON.parse(entry)).toMatchObject({ index: i, audit_id });
    }
    expect((await get(`/v1/audit/entries/${size}`, auditor)).json()).toMatchObject({ code: 'not_found' });
    for (const bad of ['01', '-1', '1.0', 'x', '99999999999999999']) {
      const res = await get(`/v1/audit/entries/${bad}`, auditor);
      expect(res.statusCode, bad).toBe(400);
    }
  });

  it('signs checkpoints that verify, and a new one only when the log grew', async () => {
    const first = (await post('/v1/audit/checkpoint')).json();
    expect(await verifyDocument(first, jwks)).toMatchObject({ valid: true });
    expect(first).toMatchObject({ origin: '127.0.0.1:8080/audit', size: expect.any(Number) });
    expect((await post('/v1/audit/checkpoint')).json()).toEqual(first);
    expect((await get('/v1/audit/checkpoint', auditor)).json()).toEqual(first);
    await createPerson('grow');
    const second = (await post('/v1/audit/checkpoint')).json();
    expect(second.size).toBe(first.size + 1);
    const proof = (await get(`/v1/audit/proofs/consistency?from=${first.size}&to=${second.size}`, auditor)).json();
    expect(verifyConsistencyProofJson(proof, first.root_hash, second.root_hash)).toEqual({ valid: true });
  });

  it('proves the inclusion of every leaf in a checkpointed tree; a swapped proof fails', async () => {
    const checkpoint = (await post('/v1/audit/checkpoint')).json();
    const proofs = [];
    for (let i = 0; i < checkpoint.size; i++) {
      const proof = (await get(`/v1/audit/proofs/inclusion?index=${i}&size=${checkpoint.size}`, auditor)).json();
      expect(proof).toMatchObject({ leaf_index: i, tree_size: checkpoint.size });
      expect(proof.leaf_hash).toBe((await get(`/v1/audit/entries/${i}`, auditor)).json().leaf_hash);
      expect(verifyInclusionProofJson(proof, checkpoint.root_hash)).toEqual({ valid: true });
      proofs.push(proof);
    }
    const swapped = { ...proofs[3], hashes: proofs[4].hashes };
    expect(verifyInclusionProofJson(swapped, checkpoint.root_hash)).toMatchObject({ valid: false });
    const otherLeaf = { ...proofs[3], leaf_hash: proofs[4].leaf_hash };
    expect(verifyInclusionProofJson(otherLeaf, checkpoint.root_hash)).toEqual({
      valid: false,
      failure: 'root_mismatch',
    });
    // without size: the whole log
    const whole = (await get('/v1/audit/proofs/inclusion?index=0', auditor)).json();
    expect(whole.tree_size).toBe((await get('/v1/audit/verify', auditor)).json().size);
  });

  it('refuses an index beyond the tree, size1 > size2, the empty tree and sizes beyond the log', async () => {
    const size = (await get('/v1/audit/verify', auditor)).json().size as number;
    const cases: Array<[string, string]> = [
      [`/v1/audit/proofs/inclusion?index=${size}`, '/query/index'],
      ['/v1/audit/proofs/inclusion?index=3&size=3', '/query/index'],
      ['/v1/audit/proofs/inclusion?index=0&size=0', '/query/size'],
      [`/v1/audit/proofs/inclusion?index=0&size=${size + 1}`, '/query/size'],
      ['/v1/audit/proofs/consistency?from=5&to=4', '/query/from'],
      ['/v1/audit/proofs/consistency?from=0&to=4', '/query/from'],
      ['/v1/audit/proofs/consistency?from=0&to=0', '/query/to'],
      [`/v1/audit/proofs/consistency?from=1&to=${size + 1}`, '/query/to'],
    ];
    for (const [url, path] of cases) {
      const res = await get(url, auditor);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().errors?.[0]?.path, url).toBe(path);
    }
    for (const url of [
      '/v1/audit/proofs/inclusion?index=+1',
      '/v1/audit/proofs/inclusion',
      '/v1/audit/proofs/consistency?from=1&extra=2',
    ]) {
      expect((await get(url, auditor)).statusCode, url).toBe(400);
    }
    const equal = (await get(`/v1/audit/proofs/consistency?from=${size}&to=${size}`, auditor)).json();
    expect(equal).toEqual({ size1: size, size2: size, hashes: [] });
  });

  it('refuses to sign a checkpoint that contradicts the last one', async () => {
    const last = (await post('/v1/audit/checkpoint')).json();
    await createPerson('contradiction');
    // a checkpoint row whose root is not the log's (inserting is allowed; editing is not)
    await rt.ctx.store.db
      .insertInto('audit_checkpoints')
      .values({
        size: last.size + 1,
        root_hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        timestamp: 't',
        document: JSON.stringify({
          ...last,
          size: last.size + 1,
          root_hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        }),
      })
      .execute();
    await createPerson('after-contradiction');
    const res = await post('/v1/audit/checkpoint');
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('audit_unavailable');
    expect((await get('/v1/audit/verify', auditor)).json()).toMatchObject({
      valid: false,
      failure: 'checkpoint_root_mismatch',
    });
  });

  it('keeps the roles: auditor reads; only admin appends and signs; runtime reads nothing', async () => {
    expect((await get('/v1/audit/verify', runtime)).statusCode).toBe(403);
    expect((await get('/v1/audit/entries/0', runtime)).statusCode).toBe(403);
    expect((await post('/v1/audit/checkpoint', undefined, auditor)).statusCode).toBe(403);
    expect((await post('/v1/audit/append', { kind: 'x', subject_ref: 'y', record: {} }, auditor)).statusCode).toBe(403);
    expect((await rt.app.inject({ method: 'GET', url: '/v1/audit/verify' })).statusCode).toBe(401);
  });
});

describe('outside append', () => {
  it('commits to the record by digest only, and to an entity by a salted commitment', async () => {
    const record = { ticket: 'T-1', by: 'ops' };
    const res = await post('/v1/audit/append', {
      kind: 'ops.manual_review',
      subject_ref: 'ns:entity:person:p1',
      record,
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    const entry = JSON.parse(body.entry);
    expect(entry).toMatchObject({
      kind: 'ops.manual_review',
      index: body.index,
      record_digest: auditRecordDigest(record),
    });
    expect(entry.subject_ref).toMatch(/^ns:commitment:/);
    expect(body.entry).not.toContain('T-1');
    expect((await get(`/v1/audit/entries/${body.index}`, auditor)).json()).toEqual(body);
  });

  it('refuses the reserved `ns.` kinds and malformed bodies', async () => {
    const cases: Array<[unknown, string]> = [
      [{ kind: 'ns.purchase_authority.allowed', subject_ref: 's', record: {} }, '/kind'],
      [{ kind: 'Bad Kind', subject_ref: 's', record: {} }, '/kind'],
      [{ kind: 'ok', subject_ref: '', record: {} }, '/subject_ref'],
      [{ kind: 'ok', subject_ref: 's' }, '/record'],
      [{ kind: 'ok', subject_ref: 's', record: {}, extra: 1 }, '/extra'],
    ];
    for (const [body, path] of cases) {
      const res = await post('/v1/audit/append', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        res.json().errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });
});
