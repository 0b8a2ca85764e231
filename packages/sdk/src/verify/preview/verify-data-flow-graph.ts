/**
 * A principal's data-flow graph (`ns.data_flow_graph.v1`, docs/data-flow.md), offline: its signature by a key of
 * the caller's JWKS, then what it must say of itself:
 * - `shape`: ids and timestamps of their forms, the principal a person or organisation;
 * - `recipients`: each (kind, id) once, of a known kind;
 * - `flows`: each to a listed recipient, of a known data class and channel, counted at least once, first seen no
 *   later than last seen and neither after the graph was made, each (recipient, class, channel) once.
 * Whether the flows are all the store holds is not checkable offline: the signature says the service stated them.
 */
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { before, isCount, isNsId, isTimestamp, member, requireFields } from './document-fields.ts';
import {
  fail,
  verifyPreviewDocument,
  type DocumentCheck,
  type PreviewVerificationResult,
} from './preview-verification.ts';

export const DATA_FLOW_GRAPH_SCHEMA = 'ns.data_flow_graph.v1';

const RECIPIENT_KINDS = new Set(['agent', 'connector', 'webhook_endpoint']);
const CHANNELS = new Set(['grant', 'authorize', 'memory', 'webhook']);
const DATA_CLASS =
  /^(grants|decisions|evidence_packs|memory_records:(public|internal|confidential|restricted)|events:[a-z_]+)$/;
const PRINCIPAL = /^ns:entity:(person|organisation):.+$/;

const shape: DocumentCheck = (d) =>
  requireFields([
    ['/data_flow_graph_id', isNsId(d.data_flow_graph_id, 'data_flow_graph')],
    ['/preview', d.preview === true],
    ['/issuer', typeof d.issuer === 'string' && d.issuer.length > 0],
    ['/generated_at', isTimestamp(d.generated_at)],
    ['/principal_entity_id', typeof d.principal_entity_id === 'string' && PRINCIPAL.test(d.principal_entity_id)],
    ['/recipients', Array.isArray(d.recipients)],
    ['/flows', Array.isArray(d.flows)],
    ['/sources', Array.isArray(d.sources) && d.sources.every((s: unknown) => typeof s === 'string')],
  ]);

const recipientKey = (kind: unknown, id: unknown) => JSON.stringify([kind, id]);

const recipients: DocumentCheck = (d) => {
  const list = d.recipients;
  if (!Array.isArray(list)) return fail('malformed_document', '/recipients');
  const seen = new Set<string>();
  for (const [i, r] of list.entries()) {
    const kind = member(r, 'kind');
    const id = member(r, 'id');
    if (typeof kind !== 'string' || !RECIPIENT_KINDS.has(kind))
      return fail('malformed_document', `/recipients/${i}/kind`);
    if (typeof id !== 'string' || id.length === 0) return fail('malformed_document', `/recipients/${i}/id`);
    const key = recipientKey(kind, id);
    if (seen.has(key)) return fail('recipient_repeated', `/recipients/${i}`);
    seen.add(key);
  }
  return undefined;
};

const flows: DocumentCheck = (d) => {
  const list = d.flows;
  if (!Array.isArray(list) || !Array.isArray(d.recipients)) return fail('malformed_document', '/flows');
  const known = new Set(d.recipients.map((r: unknown) => recipientKey(member(r, 'kind'), member(r, 'id'))));
  const seen = new Set<string>();
  for (const [i, f] of list.entries()) {
    const at = `/flows/${i}`;
    const dataClass = member(f, 'data_class');
    const channel = member(f, 'channel');
    const first = member(f, 'first_at');
    const last = member(f, 'last_at');
    if (!known.has(recipientKey(member(f, 'recipient_kind'), member(f, 'recipient_id')))) {
      return fail('flow_dangling', `${at}/recipient_id`);
    }
    if (typeof dataClass !== 'string' || !DATA_CLASS.test(dataClass))
      return fail('malformed_document', `${at}/data_class`);
    if (typeof channel !== 'string' || !CHANNELS.has(channel)) return fail('malformed_document', `${at}/channel`);
    const count = member(f, 'count');
    if (!isCount(count) || count < 1) return fail('malformed_document', `${at}/count`);
    if (!isTimestamp(first) || !isTimestamp(last)) return fail('malformed_document', `${at}/first_at`);
    if (before(last, first)) return fail('flow_times_invalid', `${at}/last_at`);
    if (isTimestamp(d.generated_at) && before(d.generated_at, last)) return fail('flow_times_invalid', `${at}/last_at`);
    const key = JSON.stringify([member(f, 'recipient_kind'), member(f, 'recipient_id'), dataClass, channel]);
    if (seen.has(key)) return fail('flow_repeated', at);
    seen.add(key);
  }
  return undefined;
};

export async function verifyDataFlowGraph(
  graph: unknown,
  trusted: TrustedKeySource,
): Promise<PreviewVerificationResult> {
  return verifyPreviewDocument(graph, trusted, DATA_FLOW_GRAPH_SCHEMA, [
    ['shape', shape],
    ['recipients', recipients],
    ['flows', flows],
  ]);
}
