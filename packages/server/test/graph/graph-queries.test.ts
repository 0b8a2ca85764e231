/**
 * The authority graph over real HTTP (issue 30), on SQLite and PostgreSQL: a three-level tree under alice's root grant
 * (concierge -> planner -> shopper-1), an ACP allowance under the middle grant, a revoked branch (sibling) and an
 * expired one (helper), with real purchases moving the spend counters. Every query is checked against what authorize
 * then does (remaining today to the cent), the blast radius against what a real revoke then cuts, the signed graph
 * against the JWKS and its schema, and the bounds and 403s.
 */
import { verifyDocument, type Jwks } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld, countState, type DelegationWorld } from '../support/delegation-world.ts';
import { testDialects } from '../support/dialects.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const ALICE = 'ns:entity:person:alice';
const TOKEN = 'ns:card_token:tok-1';
const agent = (name: string) => `ns:entity:agent:${name}`;
const eur = (minor: number) => ({ minor, currency: 'EUR' });

interface Path {
  actor_entity_id: string;
  leaf_grant_id: string;
  links: { grant_id: string; spent_today: { minor: number } | null }[];
  effective: Record<string, unknown> & { usable: boolean; blocked_by: string | null };
}

for (const dialect of await testDialects()) {
  describe(`authority graph over HTTP (${dialect})`, () => {
    let rt: TestRuntime;
    let w: DelegationWorld;
    let base: string;
    let auditorToken: string;
    const clock = new SteppingClock();
    const ids = { root: '', middle: '', leaf: '', sibling: '', helper: '', allowanceGrant: '', allowance: '' };

    beforeAll(async () => {
      rt = await startTestRuntime({ dialect, clock });
      base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
      w = await buildDelegationWorld(base, ADMIN_TOKEN, clock);
      ids.root = w.root.grant_id;
      const made = async (parent: string, by: 'concierge' | 'planner', to: string, scope: Record<string, unknown>) => {
        const res = await w.delegate(parent, by, to, scope);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.grant_id as string;
      };
      ids.middle = await made(ids.root, 'concierge', agent('planner'), {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        max_daily_amount: { amount: 200, currency: 'EUR' },
        may_delegate: true,
      });
      ids.leaf = await made(ids.middle, 'planner', agent('shopper-1'), {
        max_daily_amount: { amount: 40, currency: 'EUR' },
      });
      ids.sibling = await made(ids.root, 'concierge', agent('sibling'), {
        max_amount_per_purchase: { amount: 30, currency: 'EUR' },
      });
      ids.helper = await made(ids.root, 'concierge', agent('helper'), {
        valid_until: new Date(clock.now().getTime() + 60_000).toISOString(),
      });
      const allowance = await fetch(`${base}/v1/allowances`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'idempotency-key': `graph-${dialect}`,
        },
        body: JSON.stringify({
          format: 'acp',
          allowance: {
            reason: 'one_time',
            max_amount: 2000,
            currency: 'eur',
            checkout_session_id: 'csn_01HV3P3XYZ9ABC',
            merchant_id: 'grocer-1',
            expires_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
          },
          vaulted_token_id: 'vt_01J8Z3WXYZ9ABC',
          parent_grant_id: ids.middle,
          actor_entity_id: agent('shopper-1'),
        }),
      });
      const allowanceBody = (await allowance.json()) as { allowance_id: string; grant: { grant_id: string } };
      expect(allowance.status, JSON.stringify(allowanceBody)).toBe(201);
      ids.allowance = allowanceBody.allowance_id;
      ids.allowanceGrant = allowanceBody.grant.grant_id;
      await w.must('POST', `/v1/grants/${ids.sibling}/revoke`);
      // real purchases: the counters every query reads are authorize's own
      const first = await w.authorize('shopper-1', w.purchase('shopper-1', 30));
      expect(first.body.decision, JSON.stringify(first.body)).toBe('allow_with_constraints');
      const second = await w.authorize('concierge', w.purchase('concierge', 20.5));
      expect(second.body.decision, JSON.stringify(second.body)).toBe('allow_with_constraints');
      clock.advance(120); // the helper branch is expired now
      auditorToken = (await w.must('POST', '/v1/tokens', { role: 'auditor' })).token;
    });
    afterAll(async () => rt?.close());

    const get = (path: string, token?: string) => w.call('GET', path, undefined, token);
    const byLeaf = (items: Path[]) => new Map(items.map((p) => [p.leaf_grant_id, p]));

    it('answers who can spend on the card and how much today, through every path', async () => {
      const res = await get(`/v1/graph/card-tokens/tok-1/spenders`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ card_token_id: TOKEN, principal_entity_id: ALICE, complete: true });
      const paths = byLeaf(res.body.items);
      // root: 300.00 a day less 30.00 + 20.50 spent through it
      expect(paths.get(ids.root)!.effective).toMatchObject({
        usable: true,
        max_amount_per_purchase: eur(10000),
        max_daily_amount: eur(30000),
        remaining_today: eur(24950),
        max_purchase_now: eur(10000),
        requires_approval_above: eur(8000),
        actions: ['search', 'compare', 'execute'],
      });
      // middle: its own 200.00 less 30.00; the root's 249.50 is higher
      expect(paths.get(ids.middle)!.effective).toMatchObject({
        usable: true,
        max_amount_per_purchase: eur(5000),
        remaining_today: eur(17000),
        max_purchase_now: eur(5000),
      });
      // leaf: inherits 50.00 per purchase; its own 40.00 a day less 30.00
      const leaf = paths.get(ids.leaf)!;
      expect(leaf.effective).toMatchObject({
        usable: true,
        max_amount_per_purchase: eur(5000),
        max_daily_amount: eur(4000),
        remaining_today: eur(1000),
        max_purchase_now: eur(1000),
      });
      expect(leaf.links.map((l) => l.grant_id)).toEqual([ids.root, ids.middle, ids.leaf]);
      expect(leaf.links.map((l) => l.spent_today?.minor)).toEqual([5050, 3000, 3000]);
      expect(paths.get(ids.sibling)!.effective).toMatchObject({ usable: false, blocked_by: 'authority_revoked' });
      expect(paths.get(ids.helper)!.effective).toMatchObject({ usable: false, blocked_by: 'authority_expired' });
      expect(paths.get(ids.allowanceGrant)!.effective).toMatchObject({ usable: true, allowed_merchants: ['grocer-1'] });
    });

    it('is right to the cent: authorize allows exactly the remaining amount and not a cent more', async () => {
      const over = await w.authorize('shopper-1', w.purchase('shopper-1', 10.01));
      expect([over.body.decision, over.body.reason]).toEqual(['deny', 'daily_limit_exceeded']);
      const exact = await w.authorize('shopper-1', w.purchase('shopper-1', 10));
      expect(exact.body.decision, JSON.stringify(exact.body)).toBe('allow_with_constraints');
      const after = byLeaf((await get(`/v1/graph/card-tokens/${TOKEN}/spenders`)).body.items);
      expect(after.get(ids.leaf)!.effective).toMatchObject({ remaining_today: eur(0), max_purchase_now: eur(0) });
      expect(after.get(ids.root)!.effective).toMatchObject({ remaining_today: eur(23950) });
    });

    it('answers what an agent may do, and the paths from the principal to it', async () => {
      const caps = await get(`/v1/graph/agents/${agent('planner')}/capabilities`);
      expect(caps.status, JSON.stringify(caps.body)).toBe(200);
      expect(caps.body.items.map((p: Path) => p.leaf_grant_id)).toEqual([ids.middle]);
      expect(caps.body.items[0]).toMatchObject({ actor_kind: 'intermediary', effective: { usable: true } });
      const shopper = await get(`/v1/graph/agents/ns:agent:shopper-1/capabilities`);
      expect(shopper.body.entity_id).toBe(agent('shopper-1'));
      expect(shopper.body.items.map((p: Path) => p.leaf_grant_id).sort()).toEqual(
        [ids.leaf, ids.allowanceGrant].sort(),
      );
      const mandatePath = byLeaf(shopper.body.items).get(ids.allowanceGrant)!;
      expect(mandatePath.links.at(-1)).toMatchObject({ mandate_id: ids.allowance });
      const paths = await get(`/v1/graph/paths?from=${ALICE}&to=${agent('shopper-1')}`);
      expect(paths.status, JSON.stringify(paths.body)).toBe(200);
      expect(paths.body.items).toHaveLength(2);
      expect(
        byLeaf(paths.body.items)
          .get(ids.leaf)!
          .links.map((l) => l.grant_id),
      ).toEqual([ids.root, ids.middle, ids.leaf]);
      const none = await get(`/v1/graph/paths?from=ns:entity:person:bob&to=${agent('shopper-1')}`);
      expect(none.body.items).toEqual([]);
    });

    it('signs the principal graph at an audit checkpoint; it verifies with the JWKS and its schema', async () => {
      const res = await get(`/v1/graph/principals/${ALICE}`, w.aliceToken);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const doc = res.body;
      expectSchemaValid(doc, 'ns.authority_graph.v1');
      const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as Jwks;
      expect((await verifyDocument(doc, jwks)).valid).toBe(true);
      expect((await verifyDocument(doc.checkpoint, jwks)).valid).toBe(true);
      expect((await verifyDocument({ ...doc, day: '1999-01-01' }, jwks)).valid).toBe(false);
      const tip = (await get('/v1/audit/checkpoint')).body;
      expect(doc.checkpoint.size).toBeLessThanOrEqual(tip.size);
      const grantNodes = doc.nodes.filter((n: { kind: string }) => n.kind === 'grant');
      expect(grantNodes.map((n: { node_id: string }) => n.node_id).sort()).toEqual(
        Object.values(ids)
          .filter((id) => id.startsWith('ns:authority:grant:'))
          .sort(),
      );
      const state = (id: string) => doc.nodes.find((n: { node_id: string }) => n.node_id === id);
      expect(state(ids.sibling)).toMatchObject({ state: 'revoked' });
      expect(state(ids.helper)).toMatchObject({ state: 'expired' });
      expect(state(ids.leaf).effective).toMatchObject({ remaining_today: eur(0) });
      expect(state(agent('planner'))).toMatchObject({ kind: 'intermediary' });
      expect(state(agent('shopper-1'))).toMatchObject({ kind: 'agent' });
      expect(state(ids.allowance)).toMatchObject({ kind: 'mandate' });
      expect(state('ns:merchant:grocer-1')).toMatchObject({ kind: 'merchant', state: 'active' });
      const edge = (kind: string, to: string) =>
        doc.edges.find((e: { kind: string; to: string }) => e.kind === kind && e.to === to);
      expect(edge('grants', ids.root)).toMatchObject({ from: ALICE });
      expect(edge('delegates', ids.leaf)).toMatchObject({ from: ids.middle });
      expect(edge('made_from', ids.allowance)).toMatchObject({ from: ids.allowanceGrant });
    });

    it('pages with limit and cursor, and cuts at max_depth saying so', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${cursor}` : '';
        const page = await get(`/v1/graph/card-tokens/${TOKEN}/spenders?limit=2${q}`);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.items.map((p: Path) => p.leaf_grant_id));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen.sort()).toEqual([ids.root, ids.middle, ids.leaf, ids.sibling, ids.helper, ids.allowanceGrant].sort());
      const shallow = await get(`/v1/graph/card-tokens/${TOKEN}/spenders?max_depth=1`);
      expect(shallow.body.complete).toBe(false);
      expect(shallow.body.items.map((p: Path) => p.leaf_grant_id)).toEqual([ids.root]);
      // the first three grants in store order are root, middle and leaf: the page shows the root alone
      const doc = (await get(`/v1/graph/principals/${ALICE}?max_depth=1&limit=3`)).body;
      expect(doc.bounds).toMatchObject({ max_depth: 1, limit: 3, complete: false });
      expect(
        doc.nodes.filter((n: { kind: string }) => n.kind === 'grant').map((n: { node_id: string }) => n.node_id),
      ).toEqual([ids.root]);
      expect(doc.bounds.next_cursor).toEqual(expect.any(String));
    });

    it.each([
      ['max_depth=0', '/query/max_depth'],
      ['max_depth=17', '/query/max_depth'],
      ['max_depth=x', '/query/max_depth'],
      ['limit=0', '/query/limit'],
      ['limit=1001', '/query/limit'],
      ['cursor=not-a-cursor', '/query/cursor'],
    ])('refuses %s with 400 naming %s, on every query', async (query, path) => {
      for (const route of [
        `/v1/graph/principals/${ALICE}`,
        `/v1/graph/card-tokens/${TOKEN}/spenders`,
        `/v1/graph/agents/${agent('planner')}/capabilities`,
        `/v1/graph/paths?from=${ALICE}&to=${agent('planner')}`,
        `/v1/graph/grants/${ids.middle}/blast-radius`,
      ]) {
        const res = await get(`${route}${route.includes('?') ? '&' : '?'}${query}`);
        expect(res.status, `${route} ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      }
    });

    it('names a missing from or to', async () => {
      const res = await get(`/v1/graph/paths?to=${agent('planner')}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('/query/from');
    });

    it('lets an auditor read, a principal its own principal only, and refuses the rest with 403', async () => {
      const routes = [
        `/v1/graph/principals/${ALICE}`,
        `/v1/graph/card-tokens/${TOKEN}/spenders`,
        `/v1/graph/agents/${agent('planner')}/capabilities`,
        `/v1/graph/paths?from=${ALICE}&to=${agent('planner')}`,
        `/v1/graph/grants/${ids.middle}/blast-radius`,
      ];
      for (const route of routes) {
        expect((await get(route, auditorToken)).status, route).toBe(200);
        expect((await get(route, w.aliceToken)).status, route).toBe(200);
        const bob = await get(route, w.bobToken);
        expect([bob.status, bob.body.code], route).toEqual([403, 'forbidden']);
        expect((await get(route, w.runtimeToken)).status, route).toBe(403);
      }
      expect((await get(`/v1/graph/principals/ns:entity:person:nobody`)).status).toBe(404);
      expect((await get(`/v1/graph/card-tokens/nope/spenders`)).status).toBe(404);
    });

    it('names exactly what a revoke then cuts: the blast radius, then the real revoke', async () => {
      const before = await countState(rt.ctx);
      const radius = await get(`/v1/graph/grants/${ids.middle}/blast-radius`);
      expect(radius.status, JSON.stringify(radius.body)).toBe(200);
      expect(await countState(rt.ctx)).toEqual(before); // nothing written
      const cut = radius.body.items.map((g: { grant_id: string }) => g.grant_id);
      expect(cut.sort()).toEqual([ids.middle, ids.leaf, ids.allowanceGrant].sort());
      expect(radius.body).toMatchObject({
        already_revoked: false,
        complete: true,
        counts: { grants: 3, agents: 2, card_tokens: 1, mandates: 1 },
        mandates: [{ mandate_id: ids.allowance, grant_id: ids.allowanceGrant }],
        card_tokens: [{ card_token_id: TOKEN, grants_cut: 3 }],
      });
      expect(radius.body.agents).toEqual([
        { entity_id: agent('planner'), kind: 'intermediary', grants_cut: 1 },
        { entity_id: agent('shopper-1'), kind: 'agent', grants_cut: 2 },
      ]);
      const revoked = await w.must('POST', `/v1/grants/${ids.middle}/revoke`);
      expect(revoked.revoked_count).toBe(cut.length);
      const events = await rt.ctx.store.db
        .selectFrom('events')
        .select('subject_ref')
        .where('event_type', '=', 'ns.authority.revoked')
        .where('seq', '>', 0)
        .execute();
      for (const id of cut) expect(events.map((e) => e.subject_ref)).toContain(id);
      const again = await get(`/v1/graph/grants/${ids.middle}/blast-radius`);
      expect(again.body).toMatchObject({ already_revoked: true, counts: { grants: 0 }, items: [] });
      // the whole tree: root and the expired helper are still cut; the revoked branches are not
      const whole = await get(`/v1/graph/grants/${ids.root}/blast-radius?limit=1`);
      expect(whole.body.counts.grants).toBe(2);
      expect(whole.body.items).toHaveLength(1);
      const rest = await get(`/v1/graph/grants/${ids.root}/blast-radius?limit=1&cursor=${whole.body.next_cursor}`);
      const wholeCut = [...whole.body.items, ...rest.body.items].map((g: { grant_id: string }) => g.grant_id);
      expect(wholeCut.sort()).toEqual([ids.root, ids.helper].sort());
      expect((await w.must('POST', `/v1/grants/${ids.root}/revoke`)).revoked_count).toBe(2);
      const spenders = byLeaf((await get(`/v1/graph/card-tokens/${TOKEN}/spenders`)).body.items);
      for (const path of spenders.values()) expect(path.effective.usable).toBe(false);
    });
  });
}
