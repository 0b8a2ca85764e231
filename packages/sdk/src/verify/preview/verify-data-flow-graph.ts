/**
 * A principal's data-flow graph (`ns.data_flow_graph.v1`, docs/data-flow.md), offline: its signature by a key of
 * the caller's JWKS, its schema version, and `shape`: the issuer and the principal it is about.
 */
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { isNsId, requireFields } from './document-fields.ts';
import { verifyPreviewDocument, type DocumentCheck, type PreviewVerificationResult } from './preview-verification.ts';

export const DATA_FLOW_GRAPH_SCHEMA = 'ns.data_flow_graph.v1';

const shape: DocumentCheck = (d) =>
  requireFields([
    ['/issuer', typeof d.issuer === 'string' && d.issuer.length > 0],
    ['/principal_entity_id', isNsId(d.principal_entity_id, 'entity')],
  ]);

export async function verifyDataFlowGraph(
  graph: unknown,
  trusted: TrustedKeySource,
): Promise<PreviewVerificationResult> {
  return verifyPreviewDocument(graph, trusted, DATA_FLOW_GRAPH_SCHEMA, [['shape', shape]]);
}
