/**
 * The reference connector catalogue (CONTRACT section 15, docs/connectors.md): read-only, the same on every
 * deployment, served from the manifests shipped with the package. Any authenticated role may read it.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AarError,
  CONFORMANCE_PROFILES,
  CONNECTOR_FAMILIES,
  CONNECTOR_STATUSES,
  CONNECTOR_TYPES,
  RISK_LEVELS,
  SIDE_EFFECT_LEVELS,
  SIGNING_PROFILE_IDS,
  type ConnectorManifest,
} from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { findConnector } from '../services/connectors/connector-catalogue.ts';
import { listConnectors } from '../services/connectors/list-connectors.ts';
import { IdParams } from './schemas.ts';

const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

const PROFILES = [...CONFORMANCE_PROFILES, ...SIGNING_PROFILE_IDS];
const TYPES = Object.keys(CONNECTOR_TYPES) as (keyof typeof CONNECTOR_TYPES)[];

export const ConnectorManifestSchema = Type.Object(
  {
    schema_version: Type.Literal('ns.connector_manifest.v1'),
    connector_id: Type.String({ description: '`ns:connector:<family>:<name>`' }),
    name: Type.String(),
    connector_type: oneOf(TYPES),
    category: oneOf(CONNECTOR_FAMILIES, 'the family, as in the id'),
    version: Type.String({ description: 'semantic version' }),
    supported_profiles: Type.Array(oneOf(PROFILES), {
      description: 'conformance profiles, and the webhook signing profiles it verifies (`ns.webhooks.<profile>.v1`)',
    }),
    risk: Type.Object({
      risk_level: oneOf(RISK_LEVELS),
      side_effect_level: oneOf(SIDE_EFFECT_LEVELS),
      requires_signature_verification: Type.Boolean(),
      requires_idempotency: Type.Boolean(),
      requires_audit_event: Type.Boolean(),
    }),
    events: Type.Object({
      subscribes_to: Type.Array(Type.String(), { description: 'what an endpoint bound to it receives, exactly' }),
      publishes: Type.Array(Type.String()),
    }),
    status: oneOf(CONNECTOR_STATUSES),
  },
  { description: 'JSON Schema: GET /v1/schemas/ns.connector_manifest.v1' },
);

const ListQuery = Type.Object(
  {
    family: Type.Optional(oneOf(CONNECTOR_FAMILIES)),
    connector_type: Type.Optional(oneOf(TYPES)),
    status: Type.Optional(oneOf(CONNECTOR_STATUSES)),
    profile: Type.Optional(oneOf(PROFILES, 'a profile the connector names in `supported_profiles`')),
  },
  { additionalProperties: false },
);

export async function connectorRoutes(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['connectors'];
  const roles = ['runtime', 'principal', 'auditor'] as const;

  r.get('/v1/connectors', {
    config: { roles },
    schema: {
      tags,
      summary: 'The reference connector catalogue, optionally filtered',
      operationId: 'listConnectors',
      description:
        'Every `ns.connector_manifest.v1` of the reference catalogue, ordered by `connector_id`, in one answer ' +
        '(the catalogue is small and fixed per release: no pagination). The filters combine: `family` (the ' +
        'second segment of the id, also its `category`), `connector_type`, `status` and `profile` (a profile the ' +
        'connector names). Credentials (`POST /v1/tokens`) and webhook endpoints can be bound to a connector.',
      querystring: ListQuery,
      response: { 200: Type.Object({ items: Type.Array(ConnectorManifestSchema) }) },
    },
    handler: async (req) => ({ items: listConnectors(req.query) as ConnectorManifest[] }),
  });

  r.get('/v1/connectors/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'One connector manifest',
      operationId: 'getConnector',
      description: 'The manifest of `ns:connector:<family>:<name>`; 404 when the catalogue has no such connector.',
      params: IdParams,
      response: { 200: ConnectorManifestSchema },
    },
    handler: async (req) => {
      const manifest = findConnector(req.params.id);
      if (manifest === undefined) throw new AarError('not_found', `connector \`${req.params.id}\` does not exist`);
      return manifest;
    },
  });
}
