/** The JSON Schema 2020-12 document of `ns.authority_graph.v1`: the route's TypeBox schema with the catalogue's members. */
import { AuthorityGraphSchema } from './graph-schemas.ts';

export function authorityGraphJsonSchema(): Record<string, unknown> {
  const body = JSON.parse(JSON.stringify(AuthorityGraphSchema)) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:aar:schema:ns.authority_graph.v1',
    title: 'ns.authority_graph.v1: A principal\u2019s authority graph (preview)',
    description:
      'GET /v1/graph/principals/{id} (CONTRACT section 22, preview): the principal\u2019s grants, intermediaries, ' +
      'agents, card tokens, mandates and merchants as nodes and edges, each grant with its path\u2019s effective ' +
      'limits, signed by the service (CONTRACT section 4) and taken at the audit checkpoint it names. docs/graph.md.',
    'x-preview': true,
    ...body,
  };
}
