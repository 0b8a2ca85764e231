/**
 * The console's readers of the graph answers, fed by core's own graph queries over a small world (the functions the
 * service's routes answer with): a three-link chain with spend today, a mandate on the leaf, a merchant list, a
 * revoked sibling. What the Graph page and the revoke confirmation draw must be what core computed, to the cent.
 */
import {
  blastRadius,
  buildAuthorityGraph,
  capabilitiesOf,
  principalGraph,
  spendersOf,
  type GraphGrant,
  type GraphRows,
} from '@aar/core';
import { describe, expect, it } from 'vitest';
import { readBlastRadius } from '../src/console/parts/blast-radius.tsx';
import { readPrincipalTree } from '../src/console/parts/graph-model.ts';
import { readCapabilities, readSpenders } from '../src/console/parts/graph-queries-model.ts';

const ALICE = 'ns:entity:person:alice';
const CARD = 'ns:card_token:tok-1';
const NOW = '2026-11-28T12:00:00.000Z';
const eur = (minor: number) => ({ minor, currency: 'EUR' });

const grant = (
  id: string,
  parent: string | null,
  depth: number,
  actor: string,
  scope: GraphGrant['scope'],
  extra: Partial<GraphGrant> = {},
): GraphGrant => ({
  grant_id: `ns:grant:${id}`,
  parent_grant_id: parent === null ? null : `ns:grant:${parent}`,
  root_grant_id: 'ns:grant:root',
  depth,
  principal_entity_id: ALICE,
  actor_entity_id: `ns:entity:agent:${actor}`,
  capability_id: 'ns:capability:payment_action:card_purchase',
  card_token_id: CARD,
  state: 'active',
  scope,
  mandate_id: null,
  ...extra,
});

const ROWS: GraphRows = {
  grants: [
    grant('root', null, 0, 'concierge', {
      max_amount_per_purchase: eur(10_000),
      max_daily_amount: eur(30_000),
      requires_approval_above: eur(8_000),
      may_delegate: true,
      max_delegation_depth: 2,
      valid_until: '2027-11-28T00:00:00.000Z',
    }),
    grant('middle', 'root', 1, 'planner', { max_amount_per_purchase: eur(6_000), max_daily_amount: eur(15_000) }),
    grant(
      'leaf',
      'middle',
      2,
      'shopper-1',
      { max_amount_per_purchase: eur(4_000), allowed_jurisdictions: ['DE'], allowed_merchants: ['grocer-1'] },
      { mandate_id: 'ns:mandate:m-1' },
    ),
    grant('gone', 'middle', 2, 'sibling', {}, { state: 'revoked' }),
  ],
  entities: [
    { entity_id: ALICE, type: 'person', state: 'active' },
    ...['concierge', 'planner', 'shopper-1', 'sibling'].map((a) => ({
      entity_id: `ns:entity:agent:${a}`,
      type: 'agent' as const,
      state: 'active' as const,
    })),
  ],
  card_tokens: [{ card_token_id: CARD, principal_entity_id: ALICE, state: 'active' }],
  mandates: [
    {
      mandate_id: 'ns:mandate:m-1',
      grant_id: 'ns:grant:leaf',
      format: 'ap2',
      single_use: false,
      used: false,
      expires_at: null,
    },
  ],
  merchants: [{ merchant_id: 'ns:merchant:grocer-1', category: '5411', jurisdiction: 'DE', state: 'active' }],
  spent_today: { 'ns:grant:middle': eur(4_500), 'ns:grant:root': eur(4_500), 'ns:grant:leaf': eur(4_500) },
};

const graph = buildAuthorityGraph(ROWS);
const ids = ROWS.grants.map((g) => g.grant_id);
// the answers as they travel: JSON, nothing of core's types
const wire = <T>(value: T): unknown => JSON.parse(JSON.stringify(value));

describe('graph readers over core answers', () => {
  it("draws the principal's tree: nesting, intermediaries, and each link's effective limits in words", () => {
    const body = principalGraph(graph, ALICE, ids, NOW);
    const tree = readPrincipalTree(
      wire({
        ...body,
        principal_entity_id: ALICE,
        graph_id: 'ns:authority_graph:x',
        bounds: { complete: true, next_cursor: null },
      }),
      ALICE,
    );
    expect(tree.grantCount).toBe(4);
    expect(tree.links.map((l) => [l.from, l.to, l.actorKind])).toEqual([
      [ALICE, 'ns:entity:agent:concierge', 'intermediary'],
    ]);
    const middle = tree.links[0]!.children[0]!;
    expect([middle.from, middle.to, middle.actorKind]).toEqual([
      'ns:entity:agent:concierge',
      'ns:entity:agent:planner',
      'intermediary',
    ]);
    const leaf = middle.children.find((l) => l.to === 'ns:entity:agent:shopper-1');
    const gone = middle.children.find((l) => l.to === 'ns:entity:agent:sibling');
    const lines = Object.fromEntries(leaf!.limits.map((l) => [l.key, l.value]));
    expect(lines).toMatchObject({
      max_amount_per_purchase: '40.00 EUR',
      max_daily_amount: '150.00 EUR',
      remaining_today: '105.00 EUR',
      max_purchase_now: '40.00 EUR',
      requires_approval_above: '80.00 EUR',
      allowed_jurisdictions: 'DE',
      allowed_merchants: 'grocer-1',
      valid_until: '2027-11-28 00:00:00 UTC',
    });
    expect(leaf!.card_tokens).toEqual([CARD]);
    expect(leaf!.mandates).toEqual(['ns:mandate:m-1']);
    expect(leaf!.merchants).toEqual(['ns:merchant:grocer-1']);
    expect(leaf!.usable).toBe(true);
    // the revoked sibling is drawn, not hidden, and says why it cannot be used
    expect(gone!.state).toBe('revoked');
    expect(gone!.usable).toBe(false);
    expect(gone!.limits[0]).toMatchObject({ key: 'blocked_by', value: expect.stringContaining('(authority_revoked)') });
  });

  it('reads the blast radius: grants, agents, card tokens and mandates a revoke would cut', () => {
    const { radius, complete } = blastRadius(graph, 'ns:grant:middle', NOW, 8)!;
    const { grants, ...rest } = radius;
    const read = readBlastRadius(
      wire({
        ...rest,
        complete,
        items: grants,
        counts: {
          grants: grants.length,
          agents: rest.agents.length,
          card_tokens: rest.card_tokens.length,
          mandates: rest.mandates.length,
        },
        next_cursor: null,
      }),
    );
    expect(read.grants).toEqual(['ns:grant:middle', 'ns:grant:leaf']);
    expect(read.agents).toEqual(['ns:entity:agent:planner', 'ns:entity:agent:shopper-1']);
    expect(read.card_tokens).toEqual([CARD]);
    expect(read.mandates).toEqual(['ns:mandate:m-1']);
    expect(read.counts).toEqual({ grants: 2, agents: 2, card_tokens: 1, mandates: 1 });
    expect([read.truncated, read.already_revoked]).toEqual([false, false]);
    const revoked = blastRadius(graph, 'ns:grant:gone', NOW, 8)!;
    expect(readBlastRadius(wire({ ...revoked.radius, items: revoked.radius.grants })).already_revoked).toBe(true);
  });

  it("reads who can spend on the card and what an agent may do, with today's amounts", () => {
    const spenders = readSpenders(wire({ items: spendersOf(graph, CARD, ids, NOW), next_cursor: null }));
    const shopper = spenders.find((s) => s.agent === 'ns:entity:agent:shopper-1')!;
    expect(shopper.today).toBe('105.00 EUR left today, at most 40.00 EUR per purchase');
    expect(shopper.blocked).toBeUndefined();
    expect(spenders.find((s) => s.agent === 'ns:entity:agent:sibling')?.blocked).toContain('(authority_revoked)');
    const [can] = readCapabilities(wire({ items: capabilitiesOf(graph, 'ns:entity:agent:shopper-1', ids, NOW) }));
    expect(can!.via).toBe('alice → concierge → planner → shopper-1');
    expect(can!.limits.find((l) => l.key === 'max_purchase_now')?.value).toBe('40.00 EUR');
  });

  it('leaves out what is not of the documented shape, and never follows a loop', () => {
    expect(readPrincipalTree({ nodes: 'x', edges: [{ from: 1 }] }, ALICE).links).toEqual([]);
    const loop = readPrincipalTree(
      {
        nodes: [
          { node_id: 'ns:grant:a', kind: 'grant', state: 'active', depth: 0, effective: null },
          { node_id: 'ns:grant:b', kind: 'grant', state: 'active', depth: 1, effective: null },
        ],
        edges: [
          { from: 'ns:grant:a', to: 'ns:grant:b', kind: 'delegates', grant_id: 'ns:grant:b' },
          { from: 'ns:grant:b', to: 'ns:grant:a', kind: 'delegates', grant_id: 'ns:grant:a' },
        ],
      },
      ALICE,
    );
    expect(loop.links).toEqual([]);
    expect(readBlastRadius({ items: [7, null, { grant_id: 'ns:grant:a' }] }).grants).toEqual(['ns:grant:a']);
  });
});
