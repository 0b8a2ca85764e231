/**
 * The answer shapes of the graph routes (docs/graph.md), as TypeBox schemas: the routes' typed responses, and the
 * source of packages/server/schemas/ns.authority_graph.v1.schema.json (written from AuthorityGraphSchema by
 * packages/server/scripts/write-authority-graph-schema.ts; a test holds the file to it). Closed objects everywhere
 * (additionalProperties false): a member the serializer did not know would be dropped and break the signature.
 */
import { Type, type Static, type TSchema } from 'typebox';

/**
 * `T | null` as a type list (`type: [<T's type>, "null"]`), never `anyOf`: the response serializer tries each `anyOf`
 * branch with a validator per value, which cost ~1 ms per path over a page of 100 paths.
 */
const nullable = <T extends TSchema>(schema: T) => {
  const json = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({
    ...json,
    type: [json.type, 'null'],
    ...(json.enum ? { enum: [...json.enum, null] } : {}),
  });
};
const closed = { additionalProperties: false } as const;
/** a closed set of strings (`enum`): a union of mapped literals would type as never */
const oneOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

export const MinorMoneySchema = Type.Object(
  {
    minor: Type.Integer({ minimum: 0, description: 'integer minor units' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 alpha-3' }),
  },
  { ...closed, description: 'money in integer minor units (decide\u2019s form)' },
);

const BudgetSchema = Type.Object(
  {
    minor: Type.Integer({ minimum: 0 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    period: oneOf(['day', 'week', 'month', 'year', 'total']),
  },
  closed,
);

const PATH_BLOCKS = [
  'principal_inactive',
  'actor_inactive',
  'instrument_inactive',
  'instrument_not_bound',
  'authority_revoked',
  'mandate_revoked',
  'authority_expired',
  'mandate_expired',
  'allowance_used',
  'delegation_invalid',
];
const ACTIONS = ['search', 'compare', 'prepare', 'request_approval', 'execute', 'refund_request', 'dispute_prepare'];
const strings = nullable(Type.Array(Type.String()));

export const EffectiveLimitsSchema = Type.Object(
  {
    usable: Type.Boolean(),
    blocked_by: nullable(oneOf(PATH_BLOCKS)),
    actions: Type.Array(oneOf(ACTIONS)),
    max_amount_per_purchase: nullable(MinorMoneySchema),
    max_daily_amount: nullable(MinorMoneySchema),
    remaining_today: nullable(MinorMoneySchema),
    max_purchase_now: nullable(MinorMoneySchema),
    requires_approval_above: nullable(MinorMoneySchema),
    budget: nullable(BudgetSchema),
    valid_until: nullable(Type.String({ format: 'date-time' })),
    allowed_merchant_categories: strings,
    blocked_merchant_categories: strings,
    allowed_jurisdictions: strings,
    allowed_merchants: strings,
    may_delegate: Type.Boolean(),
    max_delegation_depth: nullable(Type.Integer({ minimum: 0 })),
  },
  {
    ...closed,
    description: 'what the path conveys now: its chain\u2019s effective scope and today\u2019s remaining amount',
  },
);

const GRANT_STATES = ['active', 'revoked', 'suspended'];

export const PathLinkSchema = Type.Object(
  {
    grant_id: Type.String(),
    depth: Type.Integer({ minimum: 0 }),
    actor_entity_id: Type.String(),
    state: oneOf(GRANT_STATES),
    mandate_id: nullable(Type.String()),
    max_daily_amount: nullable(MinorMoneySchema),
    spent_today: nullable(MinorMoneySchema),
  },
  closed,
);

export const AuthorityPathSchema = Type.Object(
  {
    principal_entity_id: Type.String(),
    actor_entity_id: Type.String(),
    actor_kind: oneOf(['agent', 'intermediary']),
    card_token_id: Type.String(),
    leaf_grant_id: Type.String(),
    capability_id: Type.String(),
    links: Type.Array(PathLinkSchema, { description: 'root first' }),
    effective: EffectiveLimitsSchema,
  },
  closed,
);

const NODE_KINDS = ['principal', 'intermediary', 'agent', 'card_token', 'grant', 'mandate', 'merchant'];
const EDGE_KINDS = ['grants', 'delegates', 'held_by', 'spends_on', 'made_from', 'limited_to'];

export const GraphNodeSchema = Type.Object(
  {
    node_id: Type.String(),
    kind: oneOf(NODE_KINDS),
    state: Type.String(),
    entity_type: nullable(Type.String()),
    depth: nullable(Type.Integer({ minimum: 0 })),
    effective: nullable(EffectiveLimitsSchema),
  },
  closed,
);

export const GraphEdgeSchema = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    kind: oneOf(EDGE_KINDS),
    grant_id: Type.String(),
  },
  closed,
);

const SignatureSchema = Type.Object(
  {
    algorithm: Type.Literal('ed25519'),
    key_id: Type.String({ minLength: 1 }),
    signature: Type.String({ pattern: '^[A-Za-z0-9_-]{86}$' }),
  },
  { ...closed, description: 'CONTRACT section 4: Ed25519 over the RFC 8785 bytes of the object without `signature`' },
);

const CheckpointSchema = Type.Object(
  {
    origin: Type.String(),
    size: Type.Integer({ minimum: 1 }),
    root_hash: Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$' }),
    timestamp: Type.String({ format: 'date-time' }),
    signature: SignatureSchema,
  },
  { ...closed, description: 'the signed audit checkpoint (ns.checkpoint.v1) the graph was taken at' },
);

export const AuthorityGraphSchema = Type.Object(
  {
    schema_version: Type.Literal('ns.authority_graph.v1'),
    graph_id: Type.String({ pattern: '^ns:authority_graph:[0-9a-f-]{36}$' }),
    issuer: Type.String(),
    generated_at: Type.String({ format: 'date-time' }),
    principal_entity_id: Type.String(),
    day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the UTC day the spend counters are of' }),
    checkpoint: CheckpointSchema,
    bounds: Type.Object(
      {
        max_depth: Type.Integer({ minimum: 1, maximum: 16 }),
        limit: Type.Integer({ minimum: 1, maximum: 1000 }),
        cursor: nullable(Type.String()),
        next_cursor: nullable(Type.String()),
        complete: Type.Boolean({ description: 'false when grants deeper than max_depth were left out' }),
      },
      closed,
    ),
    nodes: Type.Array(GraphNodeSchema),
    edges: Type.Array(GraphEdgeSchema),
    signature: SignatureSchema,
  },
  closed,
);

const pathPage = {
  as_of: Type.String({ format: 'date-time' }),
  day: Type.String(),
  max_depth: Type.Integer(),
  complete: Type.Boolean(),
  items: Type.Array(AuthorityPathSchema),
  next_cursor: nullable(Type.String()),
};

export const SpendersSchema = Type.Object(
  { card_token_id: Type.String(), principal_entity_id: Type.String(), ...pathPage },
  closed,
);
export const CapabilitiesSchema = Type.Object({ entity_id: Type.String(), ...pathPage }, closed);
export const PathsSchema = Type.Object({ from: Type.String(), to: Type.String(), ...pathPage }, closed);

export const BlastRadiusSchema = Type.Object(
  {
    grant_id: Type.String(),
    principal_entity_id: Type.String(),
    already_revoked: Type.Boolean(),
    as_of: Type.String({ format: 'date-time' }),
    max_depth: Type.Integer(),
    complete: Type.Boolean(),
    counts: Type.Object(
      { grants: Type.Integer(), agents: Type.Integer(), card_tokens: Type.Integer(), mandates: Type.Integer() },
      closed,
    ),
    agents: Type.Array(
      Type.Object(
        {
          entity_id: Type.String(),
          kind: oneOf(['agent', 'intermediary']),
          grants_cut: Type.Integer(),
        },
        closed,
      ),
    ),
    card_tokens: Type.Array(Type.Object({ card_token_id: Type.String(), grants_cut: Type.Integer() }, closed)),
    mandates: Type.Array(Type.Object({ mandate_id: Type.String(), grant_id: Type.String() }, closed)),
    items: Type.Array(
      Type.Object(
        {
          grant_id: Type.String(),
          parent_grant_id: nullable(Type.String()),
          depth: Type.Integer(),
          actor_entity_id: Type.String(),
          card_token_id: Type.String(),
          mandate_id: nullable(Type.String()),
          usable: Type.Boolean(),
        },
        closed,
      ),
    ),
    next_cursor: nullable(Type.String()),
  },
  closed,
);
