/**
 * The cross-rule-pack taxonomy over HTTP (issue 30, docs/policy.md "Taxonomy"), on SQLite and PostgreSQL: "which
 * rules implement EU AI Act human oversight" is one call answering the shipped rules that ask the principal
 * (`step_up`, narrower than `human_oversight`) and the controls of every framework about it; narrower terms can be
 * left out; an operator's published pack joins the answer, a draft does not; a rule or control pointing at a term the
 * taxonomy does not have is refused naming the field, and nothing is stored; unknown terms are 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiCall, type ApiCall } from '../support/api-call.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { testPack } from '../policy/policy-fixtures.ts';

const dialects = await testDialects();

/** A compliance mapping of an operator's own framework: a generic pack without rules, one control. */
function operatorMapping(name: string, taxonomy: string[]): Record<string, unknown> {
  return {
    schema_version: 'ns.rule_pack.v1',
    pack_id: `ns:rule_pack:${name}`,
    version: '1.0.0',
    domain: 'generic',
    title: `Mapping ${name}`,
    description: 'an in-house control framework',
    dictionaries: [],
    rules: [],
    tests: [],
    framework: name,
    source: {
      title: 'In-house controls',
      publisher: 'Acme Bank',
      url: 'https://example.com/controls',
      status: 'adopted',
    },
    scope_note: 'Applies to every agent purchase.',
    controls: [
      {
        control_id: 'HO-1',
        title: 'A person can stop an agent',
        assessment: 'gap',
        taxonomy,
        reason: 'organisational',
        evidence: { description: 'Nothing in a pack.', requirements: [] },
      },
    ],
  };
}

describe.each(dialects)('the rule taxonomy over HTTP on %s', (dialect) => {
  let rt: TestRuntime;
  let call: ApiCall;
  let auditor: string;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    call = createApiCall(base, ADMIN_TOKEN);
    const token = await call('POST', '/v1/tokens', { role: 'auditor' });
    expect(token.status).toBe(201);
    auditor = token.body.token;
  }, 120_000);
  afterAll(async () => rt?.close());

  it('answers which rules and controls implement human oversight, narrower terms included', async () => {
    const res = await call('GET', '/v1/taxonomy/human_oversight', undefined, auditor);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body;
    expect(body.taxonomy).toMatchObject({ dictionary_id: 'ns:dictionary:rule_taxonomy', version: '1.0.0' });
    expect(body.taxonomy.digest).toMatch(/^sha-256:/);
    expect(body.term).toMatchObject({ code: 'human_oversight', label: 'Human oversight' });
    expect(body.term.meaning).toMatch(/Art\. 14/);
    expect(body.broader).toEqual([]);
    expect(body.narrower).toEqual(['step_up', 'revocation']);
    const rules = body.rules.map((r: { pack_id: string; rule_id: string }) => `${r.pack_id}#${r.rule_id}`);
    expect(rules).toEqual(
      expect.arrayContaining([
        'ns:rule_pack:psd2_sca#single_amount_over_limit',
        'ns:rule_pack:first_time_merchant#new_merchant',
        'ns:rule_pack:cross_border#outside_eea',
        'ns:rule_pack:basket_restrictions#alcohol',
      ]),
    );
    // a rule that only denies (weapons) does not ask a person: not human oversight
    expect(rules).not.toContain('ns:rule_pack:basket_restrictions#weapons');
    for (const r of body.rules) {
      expect(r.matched).toEqual(['step_up']);
      expect(r.version).toBe('1.0.0');
    }
    const controls = body.controls.map((c: { term_code: string }) => c.term_code);
    expect(controls).toEqual(
      expect.arrayContaining([
        'eu_ai_act:art_14_4_d',
        'eu_ai_act:art_14_4_e',
        'nist_ai_rmf:map_3_5',
        'nist_ai_rmf:manage_2_4',
        'psd3:psr_art_85',
      ]),
    );
    const d = body.controls.find((c: { term_code: string }) => c.term_code === 'eu_ai_act:art_14_4_d');
    expect(d).toMatchObject({ framework: 'eu_ai_act', control_id: 'Art. 14(4)(d)', matched: ['step_up'] });
    expect(d.implemented_by).toContain('ns:rule_pack:first_time_merchant@1.0.0#new_merchant');
  });

  it('a narrower term names its broader ones; include_narrower=false keeps only what names the term itself', async () => {
    const sca = (await call('GET', '/v1/taxonomy/sca')).body;
    expect(sca.broader).toEqual(['identity_authentication']);
    expect(sca.rules.every((r: { pack_id: string }) => r.pack_id === 'ns:rule_pack:psd2_sca')).toBe(true);
    expect(sca.rules).toHaveLength(4);
    expect(sca.controls.map((c: { term_code: string }) => c.term_code)).toEqual(['psd3:psr_art_85']);

    const directRes = await call('GET', '/v1/taxonomy/human_oversight?include_narrower=false');
    expect(directRes.status, JSON.stringify(directRes.body)).toBe(200);
    const direct = directRes.body;
    expect(direct.include_narrower).toBe(false);
    expect(direct.rules).toEqual([]);
    expect(direct.controls).toEqual([]);

    const spend = (await call('GET', '/v1/taxonomy/spend_limits')).body;
    expect(spend.rules.length).toBeGreaterThanOrEqual(6);
    for (const r of spend.rules) expect(r.matched).toEqual(['spend_cap']);
  });

  it('the overview lists every term with its narrower terms and counts; every root term is implemented', async () => {
    const res = await call('GET', '/v1/taxonomy', undefined, auditor);
    expect(res.status).toBe(200);
    const terms = res.body.terms as Array<{ code: string; parent?: string; rules: number; controls: number }>;
    const byCode = new Map(terms.map((t) => [t.code, t]));
    for (const code of ['spend_limits', 'velocity', 'geography', 'merchant', 'sca', 'human_oversight']) {
      expect(byCode.has(code), code).toBe(true);
    }
    expect(byCode.get('human_oversight')).toMatchObject({ narrower: ['step_up', 'revocation'] });
    for (const t of terms.filter((x) => x.parent === undefined)) {
      expect(t.rules + t.controls, `${t.code} is implemented by nothing`).toBeGreaterThan(0);
    }
    // the counts are what the per-term query answers
    const oversight = (await call('GET', '/v1/taxonomy/human_oversight')).body;
    expect(byCode.get('human_oversight')).toMatchObject({
      rules: oversight.rules.length,
      controls: oversight.controls.length,
    });
  });

  it('a published operator pack joins the answer; a draft does not', async () => {
    const pack = testPack('oversight_extra', {
      reasons: [{ code: 'ask', decision: 'require_approval', description: 'ask the principal' }],
      rules: [
        {
          rule_id: 'ask_night',
          title: 'ask at night',
          description: 'asks the principal for purchases at night',
          taxonomy: ['time_window', 'step_up'],
          when: { '<': [{ var: 'facts.local_time.hour' }, 6] },
          effect: 'require_approval',
          reason: 'oversight_extra.ask',
        },
      ],
      tests: [
        {
          name: 'at night',
          context: { request: {}, facts: { local_time: { hour: 2 } } },
          expect: { effect: 'require_approval', reason: 'oversight_extra.ask' },
        },
        { name: 'by day', context: { request: {}, facts: { local_time: { hour: 12 } } }, expect: { effect: 'none' } },
      ],
    });
    expect((await call('POST', '/v1/rule-packs', pack)).status).toBe(201);
    const mapping = await call('POST', '/v1/rule-packs', operatorMapping('acme_controls', ['revocation']));
    expect(mapping.status, JSON.stringify(mapping.body)).toBe(201);
    const ids = async () => {
      const body = (await call('GET', '/v1/taxonomy/human_oversight')).body;
      return {
        rules: body.rules.map((r: { pack_id: string; rule_id: string }) => `${r.pack_id}#${r.rule_id}`),
        controls: body.controls.map((c: { term_code: string }) => c.term_code),
      };
    };
    const drafted = await ids();
    expect(drafted.rules).not.toContain('ns:rule_pack:oversight_extra#ask_night');
    expect(drafted.controls).not.toContain('acme_controls:ho_1');

    const published = await call('POST', '/v1/rule-packs/oversight_extra/versions/1.0.0/publish');
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const publishedMapping = await call('POST', '/v1/rule-packs/acme_controls/versions/1.0.0/publish');
    expect(publishedMapping.status, JSON.stringify(publishedMapping.body)).toBe(200);
    const after = await ids();
    expect(after.rules).toContain('ns:rule_pack:oversight_extra#ask_night');
    expect(after.controls).toContain('acme_controls:ho_1');
    const timing = (await call('GET', '/v1/taxonomy/timing')).body;
    expect(timing.rules.find((r: { rule_id: string }) => r.rule_id === 'ask_night')).toMatchObject({
      matched: ['time_window'],
      taxonomy: ['time_window', 'step_up'],
      effect: 'require_approval',
      reason: 'oversight_extra.ask',
    });
  });

  it('a rule or a control naming an unknown term is refused naming the field, and nothing is stored', async () => {
    const badRule = testPack('bad_taxonomy', {
      rules: [{ ...(testPack('x').rules as object[])[0], taxonomy: ['velocity', 'astrology'] }],
    });
    const rule = await call('POST', '/v1/rule-packs', badRule);
    expect(rule.status).toBe(400);
    expect(rule.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/rules/0/taxonomy/1' })]),
    );
    const control = await call('POST', '/v1/rule-packs', operatorMapping('bad_mapping', ['human_oversight', 'nope']));
    expect(control.status).toBe(400);
    expect(control.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/controls/0/taxonomy/1', message: expect.stringMatching(/nope/) }),
      ]),
    );
    const stored = await rt.ctx.store.db
      .selectFrom('rule_packs')
      .select('name')
      .where('name', 'in', ['bad_taxonomy', 'bad_mapping'])
      .execute();
    expect(stored).toEqual([]);
  });

  it('an unknown term is 404, a malformed one 400 naming the parameter, no token 401', async () => {
    const unknown = await call('GET', '/v1/taxonomy/astrology', undefined, auditor);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
    const malformed = await call('GET', '/v1/taxonomy/Not%20A%20Term', undefined, auditor);
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toMatch(/term/);
    const bad = await call('GET', '/v1/taxonomy/sca?include_narrower=perhaps', undefined, auditor);
    expect(bad.status).toBe(400);
    const anonymous = await call('GET', '/v1/taxonomy/sca', undefined, 'not-a-token');
    expect(anonymous.status).toBe(401);
  });
});
