/**
 * The pure graph model over hand-built rows: effective limits through a chain (the intersection core decide
 * enforces), today's remaining amount link by link, each blocking reason in CONTRACT section 3 order, the blast radius
 * (walking through revoked grants, stopping at the depth bound), and the principal graph's nodes and edges.
 */
import { describe, expect, it } from 'vitest';
import {
  blastRadius,
  buildAuthorityGraph,
  capabilitiesOf,
  principalGraph,
  spendersOf,
  type GraphGrant,
  type GraphRows,
} from '../../src/index.ts';

const NOW = '2026-11-28T12:00:00.000Z';
const P = 'ns:entity:person:alice';
const TOKEN = 'ns:card_token:tok-1';
const CAP = 'ns:capability:payment_action:card_purchase';
const eur = (minor: number) => ({ minor, currency: 'EUR' });

function grant(id: string, parent: string | null, depth: number, actor: string, scope: GraphGrant['scope'] = {}) {
  return {
    grant_id: id,
    parent_grant_id: parent,
    root_grant_id: 'g0',
    depth,
    principal_entity_id: P,
    actor_entity_id: actor,
    capability_id: CAP,
    card_token_id: TOKEN,
    state: 'active' as const,
    scope,
    mandate_id: null as string | null,
  };
}

function world(overrides: Partial<GraphRows> = {}): GraphRows {
  return {
    grants: [
      grant('g0', null, 0, 'ns:entity:organisation:house', {
        max_amount_per_purchase: eur(10000),
        max_daily_amount: eur(30000),
        allowed_actions: ['search', 'execute'],
        may_delegate: true,
      }),
      grant('g1', 'g0', 1, 'ns:entity:agent:planner', { max_amount_per_purchase: eur(5000), may_delegate: true }),
      grant('g2', 'g1', 2, 'ns:entity:agent:shopper', { max_daily_amount: eur(4000) }),
      { ...grant('g3', 'g0', 1, 'ns:entity:agent:other'), state: 'revoked' as const },
      grant('g4', 'g3', 2, 'ns:entity:agent:shopper'),
    ],
    entities: [
      { entity_id: P, type: 'person', state: 'active' },
      { entity_id: 'ns:entity:organisation:house', type: 'organisation', state: 'active' },
      { entity_id: 'ns:entity:agent:planner', type: 'agent', state: 'active' },
      { entity_id: 'ns:entity:agent:shopper', type: 'agent', state: 'active' },
      { entity_id: 'ns:entity:agent:other', type: 'agent', state: 'active' },
    ],
    card_tokens: [{ card_token_id: TOKEN, principal_entity_id: P, state: 'active' }],
    mandates: [],
    merchants: [],
    spent_today: { g0: eur(12345), g1: eur(1000), g2: eur(1000) },
    ...overrides,
  };
}

const ALL = ['g0', 'g1', 'g2', 'g3', 'g4'];

describe('effective limits through a path', () => {
  it('intersects every link and takes the lowest remaining amount, to the cent', () => {
    const paths = spendersOf(buildAuthorityGraph(world()), TOKEN, ALL, NOW);
    const leaf = paths.find((p) => p.leaf_grant_id === 'g2')!;
    expect(leaf.effective).toMatchObject({
      usable: true,
      actions: ['search', 'execute'],
      max_amount_per_purchase: eur(5000),
      max_daily_amount: eur(4000),
      remaining_today: eur(3000),
      max_purchase_now: eur(3000),
    });
    expect(leaf.links.map((l) => l.spent_today)).toEqual([eur(12345), eur(1000), eur(1000)]);
    const root = paths.find((p) => p.leaf_grant_id === 'g0')!;
    expect(root.effective).toMatchObject({ remaining_today: eur(17655), max_purchase_now: eur(10000) });
  });

  it('floors the remaining amount at zero and never lets a counter in another currency leave anything', () => {
    const over = spendersOf(buildAuthorityGraph(world({ spent_today: { g2: eur(9999) } })), TOKEN, ['g2'], NOW);
    expect(over[0]!.effective.remaining_today).toEqual(eur(0));
    const odd = spendersOf(
      buildAuthorityGraph(world({ spent_today: { g2: { minor: 1, currency: 'USD' } } })),
      TOKEN,
      ['g2'],
      NOW,
    );
    expect(odd[0]!.effective.remaining_today).toEqual(eur(0));
  });

  it.each<[string, Partial<GraphRows> | ((rows: GraphRows) => GraphRows), string]>([
    [
      'a suspended principal',
      (r) => ({ ...r, entities: r.entities.map((e) => (e.entity_id === P ? { ...e, state: 'suspended' } : e)) }),
      'principal_inactive',
    ],
    [
      'a suspended leaf actor',
      (r) => ({
        ...r,
        entities: r.entities.map((e) => (e.entity_id === 'ns:entity:agent:shopper' ? { ...e, state: 'suspended' } : e)),
      }),
      'actor_inactive',
    ],
    [
      'a suspended card token',
      { card_tokens: [{ card_token_id: TOKEN, principal_entity_id: P, state: 'suspended' }] },
      'instrument_inactive',
    ],
    [
      'a card token of another principal',
      { card_tokens: [{ card_token_id: TOKEN, principal_entity_id: 'ns:entity:person:bob', state: 'active' }] },
      'instrument_not_bound',
    ],
    [
      'a suspended intermediary',
      (r) => ({
        ...r,
        entities: r.entities.map((e) => (e.entity_id === 'ns:entity:agent:planner' ? { ...e, state: 'suspended' } : e)),
      }),
      'authority_revoked',
    ],
    [
      'an expired ancestor',
      (r) => ({
        ...r,
        grants: r.grants.map((g) => (g.grant_id === 'g1' ? { ...g, scope: { ...g.scope, valid_until: NOW } } : g)),
      }),
      'authority_expired',
    ],
    [
      'a missing ancestor',
      (r) => ({ ...r, grants: r.grants.filter((g) => g.grant_id !== 'g1') }),
      'delegation_invalid',
    ],
  ])('blocks the path on %s', (_name, change, reason) => {
    const rows = typeof change === 'function' ? change(world()) : world(change);
    const [path] = capabilitiesOf(buildAuthorityGraph(rows), 'ns:entity:agent:shopper', ['g2'], NOW);
    expect(path!.effective).toMatchObject({ usable: false, blocked_by: reason });
  });

  it('names a revoked ancestor, and a used single-use mandate', () => {
    const [revoked] = capabilitiesOf(buildAuthorityGraph(world()), 'ns:entity:agent:shopper', ['g4'], NOW);
    expect(revoked!.effective.blocked_by).toBe('authority_revoked');
    const rows = world();
    const withMandate: GraphRows = {
      ...rows,
      grants: rows.grants.map((g) => (g.grant_id === 'g2' ? { ...g, mandate_id: 'ns:allowance:m1' } : g)),
      mandates: [
        {
          mandate_id: 'ns:allowance:m1',
          grant_id: 'g2',
          format: 'acp',
          single_use: true,
          used: true,
          expires_at: null,
        },
      ],
    };
    const [used] = capabilitiesOf(buildAuthorityGraph(withMandate), 'ns:entity:agent:shopper', ['g2'], NOW);
    expect(used!.effective.blocked_by).toBe('allowance_used');
  });
});

describe('blast radius', () => {
  it('cuts the grant and every active descendant, walking through revoked ones, as the revoke does', () => {
    const rows = world();
    rows.grants = [...rows.grants, grant('g5', 'g4', 3, 'ns:entity:agent:planner')];
    const { radius, complete } = blastRadius(buildAuthorityGraph(rows), 'g0', NOW, 8)!;
    expect(complete).toBe(true);
    expect(radius.grants.map((g) => g.grant_id)).toEqual(['g0', 'g1', 'g2', 'g4', 'g5']);
    expect(radius.card_tokens).toEqual([{ card_token_id: TOKEN, grants_cut: 5 }]);
  });

  it('cuts nothing below a revoked grant, and says when the depth bound left grants out', () => {
    const graph = buildAuthorityGraph(world());
    expect(blastRadius(graph, 'g3', NOW, 8)!.radius).toMatchObject({ already_revoked: true, grants: [] });
    const shallow = blastRadius(graph, 'g0', NOW, 1)!;
    expect(shallow.complete).toBe(false);
    expect(shallow.radius.grants.map((g) => g.grant_id)).toEqual(['g0', 'g1']);
  });
});

describe('principal graph', () => {
  it('draws every grant with its actor, card token and delegation edge', () => {
    const { nodes, edges } = principalGraph(buildAuthorityGraph(world()), P, ALL, NOW);
    expect(nodes.filter((n) => n.kind === 'grant').map((n) => [n.node_id, n.state])).toEqual([
      ['g0', 'active'],
      ['g1', 'active'],
      ['g2', 'active'],
      ['g3', 'revoked'],
      ['g4', 'active'],
    ]);
    expect(nodes.find((n) => n.node_id === 'ns:entity:agent:planner')!.kind).toBe('intermediary');
    expect(nodes.find((n) => n.node_id === 'ns:entity:agent:shopper')!.kind).toBe('agent');
    expect(edges).toContainEqual({ from: P, to: 'g0', kind: 'grants', grant_id: 'g0' });
    expect(edges).toContainEqual({ from: 'g1', to: 'g2', kind: 'delegates', grant_id: 'g2' });
    expect(edges).toContainEqual({ from: 'g2', to: TOKEN, kind: 'spends_on', grant_id: 'g2' });
  });
});
