/**
 * Agent metadata attestations (preview, issue 30): an agent's model, software version and operator, signed with the
 * agent's own registered key, bound into every later decision's snapshot, decision map and evidence pack.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { attestAgentMetadata } from '../services/agent-metadata/attest-metadata.ts';
import { getCurrentAttestation } from '../services/agent-metadata/get-metadata.ts';
import { IdParams, Timestamp } from './schemas.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): agent metadata binding is part of the v1.1 preview set and may change incompatibly ' +
  'until it is frozen. ';

const Text = Type.String({ minLength: 1, maxLength: 256 });

const AttestationDocument = Type.Object(
  {
    schema_version: Type.Literal('ns.agent_metadata_attestation.v1'),
    agent_entity_id: Type.String({ maxLength: 256, description: 'the agent of the path, `ns:entity:agent:<id>`' }),
    model: Text,
    software_version: Text,
    operator: Text,
    issued_at: Type.String({ maxLength: 64, description: 'ISO 8601 UTC; within the signature window of now' }),
    signature: Type.Object(
      {
        algorithm: Type.Literal('ed25519'),
        key_id: Type.String({ maxLength: 256, description: 'informative only: the agent key registered is used' }),
        signature: Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description:
      '`ns.agent_metadata_attestation.v1`: signed per CONTRACT section 4 with the agent\u2019s own Ed25519 key',
  },
);

const AttestationView = Type.Object({
  attestation_id: Type.String({ description: '`ns:agent_metadata:<uuid>`' }),
  agent_entity_id: Type.String(),
  model: Type.String(),
  software_version: Type.String(),
  operator: Type.String(),
  issued_at: Type.String(),
  digest: Type.String({ description: '`sha-256:` + base64url of the RFC 8785 bytes of the signed document' }),
  document: AttestationDocument,
  audit_ref: Type.String(),
  created_at: Timestamp,
});

export async function agentMetadataRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['entities'];
  const preview = { 'x-preview': true };

  r.post('/v1/entities/:id/metadata-attestations', {
    config: {
      roles: ['admin', 'runtime'],
      errors: ['invalid_id', 'invalid_request', 'invalid_signature', 'not_found', 'reference_invalid', 'conflict'],
    },
    schema: {
      ...preview,
      tags,
      summary: "Accept an agent's signed metadata attestation (preview)",
      operationId: 'attestAgentMetadata',
      description:
        PREVIEW +
        'The body is an `ns.agent_metadata_attestation.v1` (model, software version, operator) signed with the ' +
        'agent\u2019s own registered Ed25519 key (CONTRACT section 4; the key the service holds for the agent, never ' +
        'one the document names). It must name the agent of the path, be issued within the signature window of now ' +
        'and later than the agent\u2019s current attestation (409 `conflict` otherwise, so an old document cannot ' +
        'come back). It becomes the agent\u2019s current metadata: every later decision\u2019s snapshot, decision map ' +
        '(actor node) and evidence pack carry it, and an authorize request presenting other `agent_metadata` is ' +
        'denied `agent_metadata_mismatch`. A signature that does not verify is 400 `invalid_signature`, and nothing ' +
        'is written. Emits `ns.entity.metadata_attested`.',
      params: IdParams,
      body: AttestationDocument,
      response: { 201: AttestationView },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await attestAgentMetadata(ctx, req.credential, req.params.id, req.body)),
  });

  r.get('/v1/entities/:id/metadata-attestations/current', {
    config: { roles: ['admin', 'auditor', 'runtime'], errors: ['invalid_id', 'not_found'] },
    schema: {
      ...preview,
      tags,
      summary: "An agent's current metadata attestation (preview)",
      operationId: 'getAgentMetadataAttestation',
      description: PREVIEW + 'The agent\u2019s latest accepted attestation, with the signed document as accepted.',
      params: IdParams,
      response: { 200: AttestationView },
    },
    handler: async (req) => getCurrentAttestation(ctx, req.params.id),
  });
}
