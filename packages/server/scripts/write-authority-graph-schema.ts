/**
 * Writes packages/server/schemas/ns.authority_graph.v1.schema.json from the route's TypeBox schema
 * (services/graph/graph-schemas.ts), so the served schema and the answer the route serialises cannot drift.
 * Run: `node --conditions=aar-source --import tsx packages/server/scripts/write-authority-graph-schema.ts`.
 */
import { writeFileSync } from 'node:fs';
import { authorityGraphJsonSchema } from '../src/services/graph/authority-graph-json-schema.ts';

const target = new URL('../schemas/ns.authority_graph.v1.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(authorityGraphJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${target.pathname}\n`);
