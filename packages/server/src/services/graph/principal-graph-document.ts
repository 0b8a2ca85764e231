/**
 * `GET /v1/graph/principals/{id}`: the principal's authority graph as a signed `ns.authority_graph.v1` (CONTRACT
 * sections 4 and 22), taken at an audit checkpoint. The checkpoint is signed (or the latest reused, when the log has
 * not grown) and the graph read IN THE SAME write-queue unit: appends cannot interleave, so the graph holds exactly
 * the changes whose audit entries are among the checkpoint's `size` leaves. The unit writes at most the checkpoint
 * row (as any checkpoint does); the reads are indexed (grants_principal: the principal's grants in store order, a
 * page of `limit`, plus their ancestors by id). Signing happens after the unit, off the writer.
 */
import {
  AarError,
  buildAuthorityGraph,
  principalGraph,
  signDocument,
  type GraphEdge,
  type GraphNode,
  type DocumentSignature,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { auditOrigin } from '../../audit/audit-origin.ts';
import { signCheckpointIn, type SignedCheckpoint } from '../../audit/checkpoints.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { assertGraphAccess } from './graph-access.ts';
import type { GraphBounds } from './graph-bounds.ts';
import { loadGraphRows } from './graph-rows.ts';
import { assertEntityExists, entityIdOf, ownerPage } from './path-queries.ts';

export const AUTHORITY_GRAPH_SCHEMA = 'ns.authority_graph.v1';

export interface UnsignedAuthorityGraph {
  schema_version: typeof AUTHORITY_GRAPH_SCHEMA;
  graph_id: string;
  issuer: string;
  generated_at: string;
  principal_entity_id: string;
  day: string;
  checkpoint: SignedCheckpoint;
  bounds: { max_depth: number; limit: number; cursor: string | null; next_cursor: string | null; complete: boolean };
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export async function principalGraphDocument(
  ctx: AppContext,
  credential: Credential | null,
  ref: string,
  bounds: GraphBounds,
): Promise<UnsignedAuthorityGraph & { signature: DocumentSignature }> {
  const principalId = entityIdOf(ref, '/params/id');
  assertGraphAccess(credential, principalId);
  await assertEntityExists(ctx, principalId);
  const origin = await auditOrigin(ctx);
  const taken = await ctx.writer.run(async (trx) => {
    const { checkpoint } = await signCheckpointIn(trx, ctx, origin);
    const now = ctx.clock.now().toISOString();
    const { page, nextCursor, complete } = await ownerPage(trx, [['grants.principal_entity_id', principalId]], bounds);
    const graphRows = await loadGraphRows(trx, page, now.slice(0, 10));
    return { checkpoint, now, graphRows, ids: page.map((r) => r.grant_id), nextCursor, complete };
  });
  const graph = buildAuthorityGraph(taken.graphRows);
  const { nodes, edges } = principalGraph(graph, principalId, taken.ids, taken.now);
  const unsigned: UnsignedAuthorityGraph = {
    schema_version: AUTHORITY_GRAPH_SCHEMA,
    graph_id: `ns:authority_graph:${ctx.newUuid()}`,
    issuer: ctx.config.issuerUrl,
    generated_at: taken.now,
    principal_entity_id: principalId,
    day: taken.now.slice(0, 10),
    checkpoint: taken.checkpoint,
    bounds: {
      max_depth: bounds.maxDepth,
      limit: bounds.limit,
      cursor: bounds.cursor,
      next_cursor: taken.nextCursor,
      complete: taken.complete,
    },
    nodes,
    edges,
  };
  if (unsigned.nodes.length === 0) throw new AarError('internal', 'a principal graph always holds its principal');
  return signDocument(unsigned, ctx.keys.current());
}
