/**
 * `GET /v1/data-flow/{principal_entity_id}` (preview, opt-in `reports`): for a DPIA, a signed `ns.data_flow_graph.v1`
 * saying which agents, connectors and webhook endpoints received which classes of one principal's data, with counts
 * and the first and last time, derived from what the store recorded (docs/data-flow.md):
 * - `grants` (channel `grant`): the grants the principal's authority reached each agent through (grants table);
 * - `decisions` (channel `authorize`): the decisions made on each agent's requests for the principal; the agent's
 *   platform received each answer (decisions table);
 * - `evidence_packs` (channel `authorize`): those decisions whose signed evidence pack was assembled (evidence_packs);
 * - `memory_records:<classification>` (channel `memory`): records each agent wrote under the principal's grants
 *   (memory_records, helper "memory"'s table);
 * - `events:<family>` (channel `webhook`): events about the principal (their envelope names the principal, or they
 *   are a decision of the principal) delivered successfully to each webhook endpoint; an endpoint bound to a
 *   connector is shown as that connector, with the endpoint named (events, webhook_attempts, webhook_endpoints).
 * Webhook endpoints are named by id and URL origin only (a URL path or query may carry a secret).
 * Read-only: the graph is computed and signed on each request, never stored; no event, no audit entry.
 * Attacker assumption: the principal id is caller text; it is parsed as an entity id and only ever bound as a
 * parameter (its LIKE pattern escaped).
 */
import { EVENT_CATALOGUE, signDocument, type DocumentSignature } from '@aar/core';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';

export const DATA_FLOW_SCHEMA = 'ns.data_flow_graph.v1';

export type RecipientKind = 'agent' | 'connector' | 'webhook_endpoint';
export type FlowChannel = 'grant' | 'authorize' | 'memory' | 'webhook';

export interface DataFlowRecipient {
  kind: RecipientKind;
  /** the agent's entity id, the connector id, or the webhook endpoint id */
  id: string;
  /** webhook endpoints, and connectors reached through them: the endpoint ids */
  endpoints?: Array<{ endpoint_id: string; url_origin: string }>;
}

export interface DataFlow {
  recipient_kind: RecipientKind;
  recipient_id: string;
  data_class: string;
  channel: FlowChannel;
  count: number;
  first_at: string;
  last_at: string;
}

export interface DataFlowGraph {
  schema_version: typeof DATA_FLOW_SCHEMA;
  preview: true;
  data_flow_graph_id: string;
  issuer: string;
  generated_at: string;
  principal_entity_id: string;
  recipients: DataFlowRecipient[];
  flows: DataFlow[];
  /** the tables read */
  sources: string[];
  signature: DocumentSignature;
}

const FAMILY_OF = new Map(EVENT_CATALOGUE.map((d) => [d.event_type, d.family]));

/** `ns.memory.written` → its catalogue family; an uncatalogued type by its second segment. */
function familyOf(eventType: string): string {
  return FAMILY_OF.get(eventType) ?? eventType.split('.')[1] ?? eventType;
}

export async function buildDataFlowGraph(ctx: AppContext, principal: string): Promise<DataFlowGraph> {
  const db = ctx.store.db;
  const flows: DataFlow[] = [];
  const agent = (data_class: string, channel: FlowChannel) => (r: AgentRow) =>
    flows.push({
      recipient_kind: 'agent',
      recipient_id: r.actor,
      data_class,
      channel,
      count: Number(r.n),
      first_at: r.first_at,
      last_at: r.last_at,
    });

  const grants = await db
    .selectFrom('grants')
    .select((eb) => [
      'actor_entity_id as actor',
      eb.fn.countAll<string>().as('n'),
      eb.fn.min('created_at').as('first_at'),
      eb.fn.max('created_at').as('last_at'),
    ])
    .where('principal_entity_id', '=', principal)
    .groupBy('actor_entity_id')
    .execute();
  grants.forEach(agent('grants', 'grant'));

  const decisions = await db
    .selectFrom('decisions')
    .select((eb) => [
      'actor_entity_id as actor',
      eb.fn.countAll<string>().as('n'),
      eb.fn.min('created_at').as('first_at'),
      eb.fn.max('created_at').as('last_at'),
    ])
    .where('principal_entity_id', '=', principal)
    .groupBy('actor_entity_id')
    .execute();
  decisions.forEach(agent('decisions', 'authorize'));

  const evidence = await db
    .selectFrom('evidence_packs as p')
    .innerJoin('decisions as d', 'd.policy_decision_id', 'p.policy_decision_id')
    .select((eb) => [
      'd.actor_entity_id as actor',
      eb.fn.countAll<string>().as('n'),
      eb.fn.min('p.created_at').as('first_at'),
      eb.fn.max('p.created_at').as('last_at'),
    ])
    .where('d.principal_entity_id', '=', principal)
    .groupBy('d.actor_entity_id')
    .execute();
  evidence.forEach(agent('evidence_packs', 'authorize'));

  const memory = await db
    .selectFrom('memory_records')
    .select((eb) => [
      'agent_entity_id as actor',
      'classification',
      eb.fn.countAll<string>().as('n'),
      eb.fn.min('created_at').as('first_at'),
      eb.fn.max('created_at').as('last_at'),
    ])
    .where('principal_entity_id', '=', principal)
    .groupBy(['agent_entity_id', 'classification'])
    .execute();
  for (const r of memory) agent(`memory_records:${r.classification}`, 'memory')(r);

  const recipients = new Map<string, DataFlowRecipient>();
  for (const f of flows) recipients.set(`agent ${f.recipient_id}`, { kind: 'agent', id: f.recipient_id });
  await webhookFlows(ctx, principal, flows, recipients);

  const unsigned = {
    schema_version: DATA_FLOW_SCHEMA,
    preview: true as const,
    data_flow_graph_id: `ns:data_flow_graph:${ctx.newUuid()}`,
    issuer: ctx.config.issuerUrl,
    generated_at: ctx.clock.now().toISOString(),
    principal_entity_id: principal,
    recipients: [...recipients.values()].sort((a, b) => order(a.kind, a.id, b.kind, b.id)),
    flows: flows.sort((a, b) =>
      order(a.recipient_kind, a.recipient_id + a.data_class, b.recipient_kind, b.recipient_id + b.data_class),
    ),
    sources: [
      'grants',
      'decisions',
      'evidence_packs',
      'memory_records',
      'events',
      'webhook_attempts',
      'webhook_endpoints',
    ],
  };
  return (await signDocument(unsigned, ctx.keys.current())) as DataFlowGraph;
}

interface AgentRow {
  actor: string;
  n: string | number | bigint;
  first_at: string;
  last_at: string;
}

function order(ka: string, a: string, kb: string, b: string): number {
  return ka < kb ? -1 : ka > kb ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/** Events about the principal delivered (an attempt `succeeded`) to each endpoint, per event family. */
async function webhookFlows(
  ctx: AppContext,
  principal: string,
  flows: DataFlow[],
  recipients: Map<string, DataFlowRecipient>,
): Promise<void> {
  const db = ctx.store.db;
  // a stored envelope is JSON.stringify text: the member appears exactly so; a derived one ('') is a decision's
  const named = `%${JSON.stringify({ principal_entity_id: principal })
    .slice(1, -1)
    .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('events as e', 'e.event_id', 'a.event_id')
    .leftJoin('decisions as d', (join) =>
      join.onRef('d.policy_decision_id', '=', 'e.subject_ref').on('e.envelope', '=', ''),
    )
    .select((eb) => [
      'a.endpoint_id',
      'e.event_type',
      eb.fn.count<string>('e.event_id').distinct().as('n'),
      eb.fn.min('a.attempted_at').as('first_at'),
      eb.fn.max('a.attempted_at').as('last_at'),
    ])
    .where('a.status', '=', 'succeeded')
    .where((eb) =>
      eb.or([
        eb(sql<string>`e.envelope`, 'like', sql<string>`${named} escape '\\'`),
        eb('d.principal_entity_id', '=', principal),
      ]),
    )
    .groupBy(['a.endpoint_id', 'e.event_type'])
    .execute();
  if (rows.length === 0) return;
  const endpointIds = [...new Set(rows.map((r) => r.endpoint_id))];
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['endpoint_id', 'url', 'connector_id'])
    .where('endpoint_id', 'in', endpointIds)
    .execute();
  const endpointOf = new Map(endpoints.map((e) => [e.endpoint_id, e]));
  const merged = new Map<string, DataFlow>();
  for (const r of rows) {
    const endpoint = endpointOf.get(r.endpoint_id);
    const connector = endpoint?.connector_id ?? null;
    const kind: RecipientKind = connector ? 'connector' : 'webhook_endpoint';
    const id = connector ?? r.endpoint_id;
    const recipient = recipients.get(`${kind} ${id}`) ?? { kind, id, endpoints: [] };
    recipients.set(`${kind} ${id}`, recipient);
    if (!recipient.endpoints!.some((e) => e.endpoint_id === r.endpoint_id)) {
      recipient.endpoints!.push({ endpoint_id: r.endpoint_id, url_origin: originOf(endpoint?.url) });
    }
    const dataClass = `events:${familyOf(r.event_type)}`;
    const key = `${kind} ${id} ${dataClass}`;
    const first = String(r.first_at);
    const last = String(r.last_at);
    const seen = merged.get(key);
    if (seen) {
      seen.count += Number(r.n);
      if (first < seen.first_at) seen.first_at = first;
      if (last > seen.last_at) seen.last_at = last;
    } else {
      const flow: DataFlow = {
        recipient_kind: kind,
        recipient_id: id,
        data_class: dataClass,
        channel: 'webhook',
        count: Number(r.n),
        first_at: first,
        last_at: last,
      };
      merged.set(key, flow);
      flows.push(flow);
    }
  }
}

function originOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
