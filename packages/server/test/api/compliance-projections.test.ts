/**
 * Compliance projections over HTTP (CONTRACT section 13, docs/compliance.md): real packs from real authorize calls
 * (an allow, a require_approval, the principal's approval and its allowed retry, two denials) projected onto every
 * shipped framework. Each answer is signed, every evidence pointer resolves inside its pack (RFC 6901, checked with
 * this file's own resolver), gaps carry reasons, and bad input is refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { canonicalJson, decodeBase64, utf8Decode, verifyDocument, type Jwks } from '@aar/core';
import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const FRAMEWORKS = ['dora', 'eu_ai_act', 'iso27001', 'nist_ai_rmf', 'psd3', 'soc2'];

let rt: TestRuntime;
let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
let jwks: Jwks;
let auditor: string;
/** evidence pack id -> pack, and the ids by what their decision was */
const packs = new Map<string, Record<string, unknown>>();
const ids: Record<'allowed' | 'approval' | 'approved' | 'denied' | 'unsigned', string> = {} as never;

/** RFC 6901, written apart from core's resolver so the two check each other. */
function naiveResolve(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  if (pointer === '') return { found: true, value: doc };
  let at: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < at.length) at = at[Number(token)];
    else if (at && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, token)) {
      at = (at as Record<string, unknown>)[token];
    } else return { found: false };
  }
  return { found: true, value: at };
}

async function project(body: unknown, query = '', token = auditor) {
  return world.call('POST', `/v1/compliance/projections${query}`, body, token);
}

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
  auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;

  const allowed = (await world.authorize(world.purchase(30))).body;
  const approval = (await world.authorize(world.purchase(45))).body;
  expect(approval.decision).toBe('require_approval');
  await world.must(
    'POST',
    `/v1/approvals/${approval.approval.approval_id}/decision`,
    { approve: true, sca_reference: 'sca-123' },
    world.principalToken,
  );
  const approved = (await world.authorize(world.purchase(45, { policy_decision_id: approval.policy_decision_id })))
    .body;
  expect(approved.reason).toBe('approved_by_principal');
  const denied = (
    await world.authorize(world.purchase(30, { resource: { merchant_id: 'casino-1', amount: 30, currency: 'EUR' } }))
  ).body;
  expect(denied.reason).toBe('merchant_category_blocked');
  const unsigned = (await world.authorize(world.purchase(20), () => ({}))).body;
  expect(unsigned.reason).toBe('payload_signature_missing');
  Object.assign(ids, {
    allowed: allowed.evidence_refs[0],
    approval: approval.evidence_refs[0],
    approved: approved.evidence_refs[0],
    denied: denied.evidence_refs[0],
    unsigned: unsigned.evidence_refs[0],
  });
  for (const id of Object.values(ids))
    packs.set(id, await world.must('GET', `/v1/evidence-packs/${id}`, undefined, auditor));
});
afterAll(async () => rt?.close());

type Control = {
  control_id: string;
  status: string;
  reason?: string;
  packs: { applicable: number; satisfying: number };
  evidence: Array<{ evidence_pack_id: string; pointer: string; note: string }>;
  unmet: Array<{ evidence_pack_id: string; pointer: string; note: string }>;
};
const control = (body: { controls: Control[] }, id: string): Control => body.controls.find((c) => c.control_id === id)!;

describe('GET /v1/compliance/frameworks', () => {
  it('lists the six frameworks as rule packs: every control says what evidence satisfies it, gaps say why', async () => {
    const res = await world.call('GET', '/v1/compliance/frameworks', undefined, world.runtimeToken);
    expect(res.status).toBe(200);
    const frameworks = res.body.frameworks as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(frameworks.map((f) => f.framework)).toEqual(FRAMEWORKS);
    for (const f of frameworks) {
      expectSchemaValid(f);
      expect(f.controls.length).toBeGreaterThan(4);
      for (const c of f.controls) {
        expect(c.evidence.description).toEqual(expect.any(String));
        if (c.assessment !== 'evidence') expect(c.reason).toEqual(expect.any(String));
        else expect(c.evidence.requirements.length).toBeGreaterThan(0);
      }
    }
    const psd3 = frameworks.find((f) => f.framework === 'psd3')!;
    expect(psd3.source).toMatchObject({ status: 'proposal' });
    expect(psd3.scope_note).toMatch(/PROPOSALS/);
    expect(frameworks.find((f) => f.framework === 'soc2')!.controls.map((c: Control) => c.control_id)).toEqual(
      expect.arrayContaining(['CC6.1', 'CC7.2', 'CC8.1']),
    );
  });

  it('docs/compliance.md names every control that is not fully evidenced, with its framework', async () => {
    const docs = readFileSync(new URL('../../../../docs/compliance.md', import.meta.url), 'utf8');
    const frameworks = (await world.call('GET', '/v1/compliance/frameworks', undefined, auditor)).body.frameworks;
    for (const f of frameworks) {
      for (const c of f.controls) {
        if (c.assessment === 'evidence' && c.coverage !== 'partial') continue;
        const row = docs
          .split('\n')
          .find((line) => line.startsWith(`| ${f.framework} |`) && line.includes(`\`${c.control_id}\``));
        expect(row, `${f.framework} ${c.control_id}`).toBeDefined();
      }
    }
  });

  it('serves one rule pack by framework; an unknown framework is 404', async () => {
    const one = await world.call('GET', '/v1/compliance/frameworks/iso27001', undefined, auditor);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ rule_pack_id: 'ns:rule_pack:iso27001:1.0.0', schema_version: 'ns.rule_pack.v1' });
    const missing = await world.call('GET', '/v1/compliance/frameworks/gdpr', undefined, auditor);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });
});

describe('POST /v1/compliance/projections', () => {
  it.each(FRAMEWORKS)(
    '%s: signed, schema-valid, every evidence pointer resolves inside its pack',
    async (framework) => {
      const res = await project({ framework, evidence_pack_ids: Object.values(ids) });
      expect(res.status).toBe(200);
      const body = res.body;
      expectSchemaValid(body);
      expect(body).toMatchObject({ framework, evidence_pack_ids: Object.values(ids), issuer: 'http://127.0.0.1:8080' });
      expect((await verifyDocument(body, jwks)).valid).toBe(true);
      // a status changed after signing no longer verifies
      const forged = structuredClone(body);
      const gap = forged.controls.find((c: Control) => c.status !== 'satisfied');
      gap.status = 'satisfied';
      expect((await verifyDocument(forged, jwks)).valid).toBe(false);

      let pointers = 0;
      for (const c of body.controls as Control[]) {
        if (c.status !== 'satisfied') expect(c.reason).toEqual(expect.any(String));
        if (c.status === 'gap' || c.status === 'not_applicable') expect(c.evidence).toEqual([]);
        else expect(c.evidence.length).toBeGreaterThan(0);
        for (const e of c.evidence) {
          const pack = packs.get(e.evidence_pack_id);
          expect(pack, e.evidence_pack_id).toBeDefined();
          expect(naiveResolve(pack, e.pointer).found, `${c.control_id} ${e.pointer}`).toBe(true);
          pointers++;
        }
      }
      expect(pointers).toBeGreaterThan(20);
      const statuses = (body.controls as Control[]).map((c) => c.status);
      for (const s of ['satisfied', 'partially_satisfied', 'not_applicable', 'gap']) {
        expect(body.summary[s]).toBe(statuses.filter((x) => x === s).length);
      }
    },
  );

  it('decides each control from the packs: the statuses of the five real decisions', async () => {
    const all = { evidence_pack_ids: Object.values(ids) };
    const soc2 = (await project({ framework: 'soc2', ...all })).body;
    expect(control(soc2, 'CC1.1')).toMatchObject({ status: 'gap', reason: expect.stringMatching(/organisational/) });
    expect(control(soc2, 'A1.2')).toMatchObject({ status: 'gap', reason: expect.stringMatching(/back/) });
    expect(control(soc2, 'CC6.3')).toMatchObject({ status: 'satisfied', packs: { applicable: 5, satisfying: 5 } });
    expect(control(soc2, 'CC6.1')).toMatchObject({ status: 'partially_satisfied', packs: { satisfying: 5 } });
    // the allowed pack's own chain shows the signed link
    expect(control(soc2, 'CC6.3').evidence).toContainEqual(
      expect.objectContaining({ evidence_pack_id: ids.allowed, pointer: '/snapshot/grants/0/signature_valid' }),
    );

    const ai = (await project({ framework: 'eu_ai_act', ...all })).body;
    expect(control(ai, 'Art. 12(1)')).toMatchObject({ status: 'satisfied' });
    expect(control(ai, 'Art. 10')).toMatchObject({ status: 'not_applicable' });
    // oversight concerns the approval request and the approved retry only
    expect(control(ai, 'Art. 14(4)(d)')).toMatchObject({ packs: { applicable: 2, satisfying: 2 } });
    expect(new Set(control(ai, 'Art. 14(4)(d)').evidence.map((e) => e.evidence_pack_id))).toEqual(
      new Set([ids.approval, ids.approved]),
    );
    // stop conditions bind the two allowed decisions
    expect(control(ai, 'Art. 14(4)(e)')).toMatchObject({ packs: { applicable: 2, satisfying: 2 } });

    const psd3 = (await project({ framework: 'psd3', ...all })).body;
    const sca = control(psd3, 'PSR Art. 85');
    expect(sca).toMatchObject({ status: 'partially_satisfied', packs: { applicable: 1, satisfying: 1 } });
    expect(sca.evidence).toContainEqual(
      expect.objectContaining({ evidence_pack_id: ids.approved, pointer: '/snapshot/approval/bound/amount' }),
    );
    expect(naiveResolve(packs.get(ids.approved), '/snapshot/approval/bound/amount').value).toEqual({
      currency: 'EUR',
      minor: 4500,
    });
    expect(control(psd3, 'PSR Art. 56')).toMatchObject({ status: 'not_applicable' });

    expect(control((await project({ framework: 'dora', ...all })).body, 'Art. 12')).toMatchObject({ status: 'gap' });
    const iso = (await project({ framework: 'iso27001', ...all })).body;
    expect(control(iso, 'A.8.13')).toMatchObject({ status: 'gap' });
    expect(control(iso, 'A.8.15')).toMatchObject({ status: 'satisfied' });
    const nist = (await project({ framework: 'nist_ai_rmf', ...all })).body;
    expect(control(nist, 'MANAGE 2.4')).toMatchObject({ status: 'satisfied', packs: { applicable: 2 } });
  });

  it('a control no selected pack concerns is not_applicable, with the reason', async () => {
    const onlyDenied = { evidence_pack_ids: [ids.denied] };
    const ai = (await project({ framework: 'eu_ai_act', ...onlyDenied })).body;
    expect(control(ai, 'Art. 14(4)(e)')).toMatchObject({
      status: 'not_applicable',
      reason: 'No allowed decision in the selection.',
      evidence: [],
    });
    expect(control((await project({ framework: 'psd3', ...onlyDenied })).body, 'PSR Art. 85').status).toBe(
      'not_applicable',
    );
  });

  it('a deployment that stops requiring signed requests loses the authentication controls', async () => {
    rt.ctx.config.requireSignedRequests = false;
    let unsignedOk: string;
    try {
      const answer = (await world.authorize(world.purchase(10), () => ({}))).body;
      expect(answer.decision).toBe('allow_with_constraints');
      unsignedOk = answer.evidence_refs[0];
    } finally {
      rt.ctx.config.requireSignedRequests = true;
    }
    packs.set(unsignedOk, await world.must('GET', `/v1/evidence-packs/${unsignedOk}`, undefined, auditor));
    const mixed = (await project({ framework: 'iso27001', evidence_pack_ids: [ids.allowed, unsignedOk] })).body;
    expect(control(mixed, 'A.8.5')).toMatchObject({
      status: 'partially_satisfied',
      reason: '1 of 2 applicable packs hold the evidence',
      packs: { applicable: 2, satisfying: 1 },
    });
    expect(control(mixed, 'A.8.5').unmet).toContainEqual(
      expect.objectContaining({ evidence_pack_id: unsignedOk, pointer: '/snapshot/payload/required' }),
    );
    expect(control(mixed, 'A.8.5').evidence.every((e) => e.evidence_pack_id === ids.allowed)).toBe(true);
    const alone = (await project({ framework: 'iso27001', evidence_pack_ids: [unsignedOk] })).body;
    expect(control(alone, 'A.8.5')).toMatchObject({ status: 'gap', evidence: [] });
  });

  it('selects by range: the decisions made in [from, to), or none', async () => {
    const first = packs.get(ids.allowed)!.now as string;
    const res = await project({ framework: 'soc2', from: first, to: new Date(Date.now() + 60_000).toISOString() });
    expect(res.status).toBe(200);
    expect(res.body.selection).toEqual({ from: first, to: expect.any(String) });
    expect(res.body.evidence_pack_ids.slice(0, 5)).toEqual(Object.values(ids));
    // `to` is exclusive
    const before = await project({ framework: 'soc2', from: '2000-01-01T00:00:00Z', to: first });
    expect(before.body.evidence_pack_ids).toEqual([]);
    for (const c of before.body.controls as Control[]) {
      expect(c.status).toBe('gap');
      expect(c.evidence).toEqual([]);
    }
    expect(control(before.body, 'CC6.1').reason).toBe('no evidence pack in the selection');
    // the default range is the 30 days before now
    const recent = await project({ framework: 'soc2' });
    expect(recent.body.evidence_pack_ids).toEqual(expect.arrayContaining(Object.values(ids)));
  });

  it('refuses bad input naming the field, and other roles', async () => {
    const cases: Array<[unknown, number, string, string]> = [
      [{ framework: 'gdpr' }, 400, 'invalid_request', '/framework'],
      [{ framework: 'SOC2' }, 400, 'invalid_request', '/framework'],
      [
        { framework: 'soc2', evidence_pack_ids: [ids.allowed], from: '2026-01-01T00:00:00Z' },
        400,
        'invalid_request',
        '/from',
      ],
      [{ framework: 'soc2', evidence_pack_ids: ['ns:decision:x'] }, 400, 'invalid_id', '/evidence_pack_ids/0'],
      [
        { framework: 'soc2', evidence_pack_ids: [ids.allowed, ids.allowed] },
        400,
        'invalid_request',
        '/evidence_pack_ids/1',
      ],
      [
        {
          framework: 'soc2',
          evidence_pack_ids: [ids.allowed, 'ns:evidence-pack:00000000-0000-7000-8000-000000000000'],
        },
        422,
        'reference_not_found',
        '/evidence_pack_ids/1',
      ],
      [
        { framework: 'soc2', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
        400,
        'invalid_request',
        '/from',
      ],
      [{ framework: 'soc2', extra: 1 }, 400, 'invalid_request', ''],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await project(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
      if (path) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await project({ framework: 'soc2' }, '?format=xml')).status).toBe(400);
    expect((await project({ framework: 'soc2' }, '', world.runtimeToken)).status).toBe(403);
    expect((await project({ framework: 'soc2' }, '', world.principalToken)).status).toBe(403);
  });
});

// NIST's schema, read from ../shared/vectors/oscal (never copied into the project)
const oscalSchema = readSharedJson<{ $schema: string }>('oscal', 'oscal_assessment-results_schema-1.1.2.json');

describe.skipIf(!oscalSchema)('?format=oscal', () => {
  const schema = oscalSchema!;
  // NIST's schema is draft-07 (its `$schema`): Ajv's default class; `contentEncoding` is an annotation there
  const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
    ajv: Ajv,
  ) => void;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);

  it('uses the draft-07 schema NIST published', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it.each(FRAMEWORKS)('%s: validates against OSCAL 1.1.2 and carries the signed projection', async (framework) => {
    const res = await project({ framework, evidence_pack_ids: Object.values(ids) }, '?format=oscal');
    expect(res.status).toBe(200);
    const valid = validate(res.body);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);

    const ar = res.body['assessment-results'];
    expect(ar.metadata['oscal-version']).toBe('1.1.2');
    // the embedded projection is the signed original: it verifies, and the OSCAL view agrees with it
    const embedded = ar['back-matter'].resources[0].base64.value as string;
    const text = utf8Decode(decodeBase64(embedded));
    const projection = JSON.parse(text);
    expect(text).toBe(canonicalJson(projection));
    expect((await verifyDocument(projection, jwks)).valid).toBe(true);
    const result = ar.results[0];
    const assessed = (projection.controls as Control[]).filter((c) => c.status !== 'not_applicable');
    expect(result.findings ?? []).toHaveLength(assessed.length);
    for (const finding of result.findings ?? []) {
      const ours = finding.props.find((p: { name: string }) => p.name === 'aar-status').value;
      expect(finding.target.status.state).toBe(ours === 'satisfied' ? 'satisfied' : 'not-satisfied');
    }
    const excluded = result['reviewed-controls']['control-selections'][0]['exclude-controls'] ?? [];
    expect(excluded).toHaveLength(projection.controls.length - assessed.length);
    // every evidence link names a pack and an RFC 6901 fragment that resolves inside it
    for (const observation of result.observations ?? []) {
      for (const e of observation['relevant-evidence']) {
        const url = new URL(e.href);
        const packId = decodeURIComponent(url.pathname.replace('/v1/evidence-packs/', ''));
        const pointer = decodeURI(url.hash.slice(1));
        expect(naiveResolve(packs.get(packId), pointer).found, e.href).toBe(true);
      }
    }
  });

  it('the validator is live: a partially satisfied control cannot be written as a third OSCAL state', async () => {
    const res = await project({ framework: 'soc2', evidence_pack_ids: [ids.allowed] }, '?format=oscal');
    const doc = structuredClone(res.body);
    doc['assessment-results'].results[0].findings[0].target.status.state = 'partially-satisfied';
    expect(validate(doc)).toBe(false);
  });
});
