/**
 * The guard's mapping file (docs/mcp.md, "Guard"): for each tool of the guarded MCP server that may be called, the
 * capability a call needs and where the purchase's fields come from (a JSON Pointer, RFC 6901, into the call's
 * arguments, or a fixed value). A tool the mapping does not name is neither listed nor callable: the guard fails
 * closed. The file is checked at start against a JSON Schema and every capability against the service's own
 * catalogue (GET /v1/capabilities): a mapping naming an unknown capability is refused before anything runs.
 * Attacker model: the model driving the agent chooses the arguments, never the mapping; the mapping is the
 * operator's, read once.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describeSchemaErrors } from '../tool-kit.ts';

export type ValueSource = { argument: string } | { value: string | number };

export interface ToolMapping {
  capability: string;
  resource: { merchant_id?: ValueSource; amount?: ValueSource; currency?: ValueSource };
  basket?: { argument: string };
}

export interface GuardMapping {
  tools: Record<string, ToolMapping>;
}

export class GuardMappingError extends Error {
  override readonly name = 'GuardMappingError';
}

const SOURCE = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['argument'],
      properties: { argument: { type: 'string', pattern: '^(/[^/]*)*$', maxLength: 256 } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['value'],
      properties: { value: { type: ['string', 'number'] } },
    },
  ],
};

const MAPPING_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['tools'],
  properties: {
    $schema: { type: 'string' },
    tools: {
      type: 'object',
      minProperties: 1,
      maxProperties: 256,
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['capability'],
        properties: {
          capability: { type: 'string', pattern: '^ns:capability:[a-z_]+:[a-z_]+$' },
          resource: {
            type: 'object',
            additionalProperties: false,
            properties: { merchant_id: SOURCE, amount: SOURCE, currency: SOURCE },
          },
          basket: {
            type: 'object',
            additionalProperties: false,
            required: ['argument'],
            properties: { argument: { type: 'string', pattern: '^(/[^/]*)*$', maxLength: 256 } },
          },
        },
      },
    },
  },
};

const validate = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(MAPPING_SCHEMA);

/** Reads and checks the mapping; `known` is the service's capability catalogue. */
export function loadGuardMapping(file: string, known: ReadonlySet<string>): GuardMapping {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new GuardMappingError(`cannot read the mapping \`${file}\` as JSON: ${(error as Error).message}`);
  }
  if (!validate(doc)) {
    throw new GuardMappingError(`the mapping \`${file}\` is invalid: ${describeSchemaErrors(validate.errors)}`);
  }
  const mapping = doc as unknown as GuardMapping;
  const unknown = Object.entries(mapping.tools)
    .filter(([, m]) => !known.has(m.capability))
    .map(([tool, m]) => `${tool}: ${m.capability}`);
  if (unknown.length > 0) {
    throw new GuardMappingError(
      `the mapping \`${file}\` names capabilities the service does not know (${unknown.join('; ')}); ` +
        `it knows: ${[...known].join(', ')}`,
    );
  }
  return { tools: { ...mapping.tools } };
}

/** RFC 6901: `/a/b~1c` reads `args.a["b/c"]`; undefined when any step is missing. */
export function readPointer(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let current: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

export function resolveSource(source: ValueSource, args: unknown): unknown {
  return 'value' in source ? source.value : readPointer(args, source.argument);
}
