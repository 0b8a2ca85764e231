/**
 * The served schema file of `ns.authority_graph.v1` is the route's own response schema (graph-schemas.ts), written by
 * scripts/write-authority-graph-schema.ts: the document the route serialises and the schema clients validate against
 * cannot drift apart. It is a preview schema, closed everywhere.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorityGraphJsonSchema } from '../../src/services/graph/authority-graph-json-schema.ts';

const FILE = new URL('../../schemas/ns.authority_graph.v1.schema.json', import.meta.url);

describe('ns.authority_graph.v1 schema file', () => {
  it('is the route schema (regenerate with scripts/write-authority-graph-schema.ts)', () => {
    expect(JSON.parse(readFileSync(FILE, 'utf8'))).toEqual(authorityGraphJsonSchema());
  });

  it('is a preview schema and closes every object', () => {
    const schema = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>;
    expect(schema['x-preview']).toBe(true);
    const open: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const obj = node as Record<string, unknown>;
      const types = ([] as unknown[]).concat(obj.type);
      if (types.includes('object') && obj.additionalProperties !== false) open.push(at);
      for (const [k, v] of Object.entries(obj)) walk(v, `${at}/${k}`);
    };
    walk(schema, '');
    expect(open).toEqual([]);
  });
});
