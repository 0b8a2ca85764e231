/**
 * A principal's authority graph (`ns.authority_graph.v1`, docs/graph.md), offline: its signature by a key of the
 * caller's JWKS, then what is checkable without the store:
 * - `shape`: ids, timestamps and bounds of their forms, `day` the UTC day of `generated_at`;
 * - `nodes`: each node once, of a known kind, the principal among them; grant nodes (and only they) carry a depth,
 *   below `bounds.max_depth`, and their effective limits;
 * - `edges`: each of a known kind, once, between nodes the graph holds, belonging to a grant it holds;
 * - `checkpoint`: the audit checkpoint the graph was read at verifies with the same keys (the graph holds every
 *   change whose audit entry is among its `size` leaves) and was taken no later than the graph.
 * Whether the graph is the store's truth at that checkpoint is not checkable offline: the signature says the service
 * stated it.
 */
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { verifyCheckpoint } from '../verify-checkpoint.ts';
import { isCount, isNsId, isTimestamp, member, requireFields } from './document-fields.ts';
import {
  fail,
  isRecord,
  verifyPreviewDocument,
  type DocumentCheck,
  type PreviewCheck,
  type PreviewVerificationResult,
} from './preview-verification.ts';

export const AUTHORITY_GRAPH_SCHEMA = 'ns.authority_graph.v1';

const NODE_KINDS = new Set(['principal', 'intermediary', 'agent', 'card_token', 'grant', 'mandate', 'merchant']);
const EDGE_KINDS = new Set(['grants', 'delegates', 'held_by', 'spends_on', 'made_from', 'limited_to']);

const shape: DocumentCheck = (d) => {
  const bounds = d.bounds;
  const next = member(bounds, 'next_cursor');
  const cursor = member(bounds, 'cursor');
  return requireFields([
    ['/graph_id', isNsId(d.graph_id, 'authority_graph')],
    ['/issuer', typeof d.issuer === 'string' && d.issuer.length > 0],
    ['/generated_at', isTimestamp(d.generated_at)],
    ['/principal_entity_id', isNsId(d.principal_entity_id, 'entity')],
    ['/day', typeof d.generated_at === 'string' && d.day === d.generated_at.slice(0, 10)],
    ['/checkpoint', isRecord(d.checkpoint)],
    ['/bounds/max_depth', isCount(member(bounds, 'max_depth'))],
    ['/bounds/limit', isCount(member(bounds, 'limit'))],
    ['/bounds/cursor', cursor === null || typeof cursor === 'string'],
    ['/bounds/next_cursor', next === null || typeof next === 'string'],
    ['/bounds/complete', typeof member(bounds, 'complete') === 'boolean'],
    ['/nodes', Array.isArray(d.nodes)],
    ['/edges', Array.isArray(d.edges)],
  ]);
};

/** node id -> kind; a failure when a node is malformed or repeated */
function nodeKinds(d: Record<string, unknown>): Map<string, string> {
  const kinds = new Map<string, string>();
  const nodes = d.nodes;
  if (!Array.isArray(nodes)) return kinds;
  for (const node of nodes) {
    const id = member(node, 'node_id');
    const kind = member(node, 'kind');
    if (typeof id === 'string' && typeof kind === 'string') kinds.set(id, kind);
  }
  return kinds;
}

const nodes: DocumentCheck = (d) => {
  const list = d.nodes;
  if (!Array.isArray(list)) return fail('malformed_document', '/nodes');
  const maxDepth = member(d.bounds, 'max_depth');
  const seen = new Set<string>();
  let principal = false;
  for (const [i, node] of list.entries()) {
    const id = member(node, 'node_id');
    const kind = member(node, 'kind');
    if (typeof id !== 'string' || id.length === 0) return fail('malformed_document', `/nodes/${i}/node_id`);
    if (typeof kind !== 'string' || !NODE_KINDS.has(kind)) return fail('malformed_document', `/nodes/${i}/kind`);
    if (typeof member(node, 'state') !== 'string') return fail('malformed_document', `/nodes/${i}/state`);
    if (seen.has(id)) return fail('node_repeated', `/nodes/${i}/node_id`);
    seen.add(id);
    if (kind === 'principal' && id === d.principal_entity_id) principal = true;
    const depth = member(node, 'depth');
    const effective = member(node, 'effective');
    if (kind === 'grant') {
      if (!isCount(depth)) return fail('node_inconsistent', `/nodes/${i}/depth`);
      if (isCount(maxDepth) && depth >= maxDepth) return fail('node_inconsistent', `/nodes/${i}/depth`);
      if (!isRecord(effective)) return fail('node_inconsistent', `/nodes/${i}/effective`);
    } else if (depth !== null || effective !== null) {
      return fail('node_inconsistent', `/nodes/${i}`);
    }
  }
  return principal ? undefined : fail('node_missing', '/principal_entity_id');
};

const edges: DocumentCheck = (d) => {
  const list = d.edges;
  if (!Array.isArray(list)) return fail('malformed_document', '/edges');
  const kinds = nodeKinds(d);
  const seen = new Set<string>();
  for (const [i, edge] of list.entries()) {
    const from = member(edge, 'from');
    const to = member(edge, 'to');
    const kind = member(edge, 'kind');
    const grant = member(edge, 'grant_id');
    if (typeof kind !== 'string' || !EDGE_KINDS.has(kind)) return fail('malformed_document', `/edges/${i}/kind`);
    if (typeof from !== 'string' || !kinds.has(from)) return fail('edge_dangling', `/edges/${i}/from`);
    if (typeof to !== 'string' || !kinds.has(to)) return fail('edge_dangling', `/edges/${i}/to`);
    if (typeof grant !== 'string' || kinds.get(grant) !== 'grant') return fail('edge_dangling', `/edges/${i}/grant_id`);
    const key = JSON.stringify([from, to, kind, grant]);
    if (seen.has(key)) return fail('edge_repeated', `/edges/${i}`);
    seen.add(key);
  }
  return undefined;
};

async function checkpointCheck(doc: unknown, trusted: TrustedKeySource): Promise<PreviewCheck> {
  try {
    const checkpoint = member(doc, 'checkpoint');
    const result = await verifyCheckpoint(checkpoint, trusted);
    if (!result.valid) {
      return {
        check: 'checkpoint',
        valid: false,
        failure: result.failure ?? 'malformed_checkpoint',
        detail: '/checkpoint',
      };
    }
    const taken = Date.parse(String(member(checkpoint, 'timestamp')));
    const generated = Date.parse(String(member(doc, 'generated_at')));
    if (!(taken <= generated)) {
      return { check: 'checkpoint', valid: false, failure: 'checkpoint_after_graph', detail: '/checkpoint/timestamp' };
    }
    return { check: 'checkpoint', valid: true };
  } catch {
    return { check: 'checkpoint', valid: false, failure: 'malformed_checkpoint', detail: '/checkpoint' };
  }
}

export async function verifyAuthorityGraph(
  graph: unknown,
  trusted: TrustedKeySource,
): Promise<PreviewVerificationResult> {
  const result = await verifyPreviewDocument(graph, trusted, AUTHORITY_GRAPH_SCHEMA, [
    ['shape', shape],
    ['nodes', nodes],
    ['edges', edges],
  ]);
  const checks = [...result.checks, await checkpointCheck(graph, trusted)];
  return { ...result, checks, valid: checks.every((c) => c.valid) };
}
