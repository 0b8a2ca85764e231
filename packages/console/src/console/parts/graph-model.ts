/**
 * The authority graph (`ns.authority_graph.v1`, GET /v1/graph/principals/{id}) read into what the Graph page draws:
 * the principal at the top, each grant a link from its delegator (the principal, or an intermediary agent) to its
 * agent, nested under the grant it was delegated from, with the effective limits of that link, its card token, its
 * mandate and the merchants it allows. Attacker assumption: the answer is untrusted JSON (the console verifies
 * nothing here, it draws); a member of an unexpected shape is left out, never guessed, and a link whose parent is
 * not in the answer stands at the top marked as such.
 */
import { reasonText } from '../../shared/reason-text.ts';
import { formatTime } from './format.ts';
import { formatMoneyValue, isMoneyValue } from './money-value.ts';

export interface LimitLine {
  key: string;
  label: string;
  value: string;
}

export interface GraphLink {
  grant_id: string;
  parent_grant_id: string | null;
  /** who delegated: the principal for a root grant, else the parent grant's agent */
  from: string;
  /** the agent the grant is to */
  to: string;
  /** `intermediary` when the actor delegated further (docs/graph.md), else `agent` */
  actorKind: 'agent' | 'intermediary';
  state: string;
  depth: number;
  /** the path can be used now (no revoked or expired link, no inactive party) */
  usable: boolean;
  limits: LimitLine[];
  card_tokens: string[];
  mandates: string[];
  merchants: string[];
  children: GraphLink[];
  /** its parent grant is not in the answer (on another page), so it is drawn at the top */
  parentMissing: boolean;
}

export interface PrincipalTree {
  principal_entity_id: string;
  graph_id: string | undefined;
  /** the audit checkpoint the graph was read at: its time and its size (leaves) */
  as_of: string | undefined;
  checkpointSize: number | undefined;
  links: GraphLink[];
  grantCount: number;
  agentCount: number;
  /** the next page of the principal's grants, null on the last */
  next_cursor: string | null;
  /** grants deeper than `max_depth` were left out (`bounds.complete: false`) */
  truncated: boolean;
}

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Limit members in the order the page shows them, with their words. */
const LIMITS: [string, string][] = [
  ['max_amount_per_purchase', 'Per purchase'],
  ['max_daily_amount', 'Per day'],
  ['remaining_today', 'Left today'],
  ['max_purchase_now', 'Most one purchase now'],
  ['spent_today', 'Spent today'],
  ['requires_approval_above', 'Approval above'],
  ['budget', 'Budget'],
  ['allowed_merchant_categories', 'Allowed categories'],
  ['blocked_merchant_categories', 'Blocked categories'],
  ['allowed_jurisdictions', 'Countries'],
  ['allowed_merchants', 'Merchants'],
  ['allowed_actions', 'Actions'],
  ['actions', 'Actions'],
  ['valid_until', 'Valid until'],
  ['may_delegate', 'May delegate'],
  ['max_delegation_depth', 'Delegation depth'],
];

function showValue(key: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (key === 'valid_until' && typeof value === 'string') return formatTime(value);
  if (key === 'budget' && isRecord(value) && isMoneyValue(value)) {
    const period = str((value as Json).period);
    return period
      ? `${formatMoneyValue(value)} per ${period === 'total' ? 'lifetime' : period}`
      : formatMoneyValue(value);
  }
  if (isMoneyValue(value)) return formatMoneyValue(value);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : strings(value).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  return undefined;
}

/** The effective limits of a link, from whichever member the answer holds them in, in the page's order. */
export function limitLines(scope: unknown): LimitLine[] {
  if (!isRecord(scope)) return [];
  const lines: LimitLine[] = [];
  for (const [key, label] of LIMITS) {
    const value = showValue(key, scope[key]);
    if (value !== undefined) lines.push({ key, label, value });
  }
  return lines;
}

interface Node {
  node_id: string;
  kind: string;
  state: string;
  depth: number | undefined;
  effective: Json | undefined;
}

interface Edge {
  from: string;
  to: string;
  kind: string;
  grant_id: string;
}

function readNodes(value: unknown): Map<string, Node> {
  const nodes = new Map<string, Node>();
  if (!Array.isArray(value)) return nodes;
  for (const n of value) {
    if (!isRecord(n) || !str(n.node_id) || !str(n.kind)) continue;
    nodes.set(n.node_id as string, {
      node_id: n.node_id as string,
      kind: n.kind as string,
      state: str(n.state) ?? 'unknown',
      depth: typeof n.depth === 'number' && Number.isSafeInteger(n.depth) ? n.depth : undefined,
      effective: isRecord(n.effective) ? n.effective : undefined,
    });
  }
  return nodes;
}

function readEdges(value: unknown): Edge[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((e) =>
    isRecord(e) && str(e.from) && str(e.to) && str(e.kind) && str(e.grant_id)
      ? [{ from: e.from as string, to: e.to as string, kind: e.kind as string, grant_id: e.grant_id as string }]
      : [],
  );
}

/** Why a path cannot be used now, as a limit line (decide's reason code; the page words it). */
function usableLine(effective: Json | undefined): LimitLine[] {
  if (effective === undefined || effective.usable !== false) return [];
  const code = str(effective.blocked_by);
  return [{ key: 'blocked_by', label: 'Usable now', value: code ? `no: ${reasonText(code)} (${code})` : 'no' }];
}

/**
 * Builds the principal's tree from `ns.authority_graph.v1` (docs/graph.md): grant nodes are the links, `grants`
 * edges hang the roots under the principal, `delegates` edges a child under its parent, `held_by` names the actor,
 * `spends_on` / `made_from` / `limited_to` the card token, mandate and merchants. Links in the answer's order.
 */
export function readPrincipalTree(answer: unknown, principal: string): PrincipalTree {
  const root = isRecord(answer) ? answer : {};
  const nodes = readNodes(root.nodes);
  const edges = readEdges(root.edges);
  const of = (grant: string, kind: string) => edges.filter((e) => e.grant_id === grant && e.kind === kind);
  const grants = [...nodes.values()].filter((n) => n.kind === 'grant');
  const parentOf = new Map<string, string>();
  for (const e of edges) if (e.kind === 'delegates' && nodes.get(e.from)?.kind === 'grant') parentOf.set(e.to, e.from);
  const childrenOf = new Map<string | null, Node[]>();
  for (const g of grants) {
    const parent = parentOf.get(g.node_id) ?? null;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), g]);
  }
  const actorOf = (grant: string) => of(grant, 'held_by')[0]?.to;
  const grow = (g: Node, from: string, depth: number, seen: ReadonlySet<string>): GraphLink => {
    const to = actorOf(g.node_id) ?? 'unknown';
    const here = new Set([...seen, g.node_id]);
    // a loop in hostile data is drawn once, never followed round
    const children = (childrenOf.get(g.node_id) ?? []).filter((c) => !here.has(c.node_id));
    return {
      grant_id: g.node_id,
      parent_grant_id: parentOf.get(g.node_id) ?? null,
      from,
      to,
      actorKind: nodes.get(to)?.kind === 'intermediary' ? 'intermediary' : 'agent',
      state: g.state,
      depth: g.depth ?? depth,
      usable: g.effective?.usable !== false,
      limits: [...usableLine(g.effective), ...limitLines(g.effective)],
      card_tokens: of(g.node_id, 'spends_on').map((e) => e.to),
      mandates: of(g.node_id, 'made_from').map((e) => e.to),
      merchants: of(g.node_id, 'limited_to').map((e) => e.to),
      children: children.map((c) => grow(c, to, depth + 1, here)),
      parentMissing: false,
    };
  };
  const principalId = str(root.principal_entity_id) ?? principal;
  // roots: under the principal's `grants` edge, or whose parent is not in this page (drawn at the top, marked)
  const links = (childrenOf.get(null) ?? []).map((g) => {
    const link = grow(g, principalId, g.depth ?? 0, new Set());
    return of(g.node_id, 'grants').length > 0 ? link : { ...link, from: 'unknown', parentMissing: true };
  });
  const bounds = isRecord(root.bounds) ? (root.bounds as Json) : {};
  const checkpoint = isRecord(root.checkpoint) ? (root.checkpoint as Json) : {};
  return {
    principal_entity_id: principalId,
    graph_id: str(root.graph_id),
    as_of: str(checkpoint.timestamp) ?? str(root.generated_at),
    checkpointSize: typeof checkpoint.size === 'number' ? checkpoint.size : undefined,
    links,
    grantCount: grants.length,
    agentCount: new Set(grants.map((g) => actorOf(g.node_id)).filter((a) => a !== undefined)).size,
    next_cursor: str(bounds.next_cursor) ?? null,
    truncated: bounds.complete === false,
  };
}
