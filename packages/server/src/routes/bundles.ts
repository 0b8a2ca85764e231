/**
 * Proof bundles (CONTRACT section 12): assemble one decision's signed `ns.authority_proof_bundle.v1`, read it and its
 * parts, and verify any bundle (the same ten checks `aar verify-bundle` and the SDKs run offline).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BUNDLE_CHECKS, BUNDLE_PARTS, type BundleCheckName, type BundlePartName, type Jwks } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { assembleBundle } from '../services/bundles/assemble-bundle.ts';
import { getBundle, getBundlePart } from '../services/bundles/get-bundle.ts';
import { verifyBundleOnServer } from '../services/bundles/verify-bundle-on-server.ts';
import { IdParams, Timestamp } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Text = (description: string, maxLength: number) => Type.String({ minLength: 1, maxLength, description });

const AssembleBody = Type.Object(
  {
    policy_decision_id: Type.String({ description: 'the decision to prove (`ns:decision:<uuid>`)', maxLength: 256 }),
    purpose: Type.Optional(
      Type.Object(
        {
          purpose: Text('why the bundle is made, e.g. `chargeback_dispute`; default `decision_evidence`', 200),
          requested_by: Type.Optional(Text('who asked for it; default the credential that assembles it', 200)),
          ticket: Type.Optional(Text('a case or ticket reference', 200)),
        },
        { additionalProperties: false, description: 'becomes the signed `purpose_manifest`' },
      ),
    ),
  },
  { additionalProperties: false },
);

const VerifyBody = Type.Object(
  {
    bundle: Open('an `ns.authority_proof_bundle.v1`'),
    jwks: Type.Optional(
      Type.Object(
        { keys: Type.Array(Open('an Ed25519 public JWK'), { maxItems: 64 }) },
        {
          description:
            "narrows the keys to judge it by to these of this service's own JWKS (all of them when omitted); a key " +
            'this service does not publish is 422 `reference_invalid`',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Verification = Type.Object(
  {
    schema_version: Type.Literal('ns.bundle_verification.v1'),
    bundle_id: Type.Union([Type.String(), Type.Null()]),
    valid: Type.Boolean({ description: 'all ten checks are ok' }),
    checks: Type.Array(
      Type.Object(
        {
          name: Type.Unsafe<BundleCheckName>({ type: 'string', enum: [...BUNDLE_CHECKS] }),
          ok: Type.Boolean(),
          detail: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
      { minItems: 10, maxItems: 10, description: 'exactly the ten checks, in their contractual order' },
    ),
    verified_at: Timestamp,
    signature: Open('CONTRACT section 4 signature by the service key'),
  },
  { additionalProperties: false },
);

const PartParams = Type.Object(
  {
    id: IdParams.properties.id,
    name: Type.Unsafe<BundlePartName>({
      type: 'string',
      enum: BUNDLE_PARTS.map((p) => p.name),
      description: 'a part a bundle references',
    }),
  },
  { additionalProperties: false },
);

export async function bundleRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['bundles'];
  const roles = ['runtime', 'auditor', 'principal'] as const;
  const json = 'application/json; charset=utf-8';

  r.post('/v1/bundles/assemble', {
    config: { roles, errors: ['invalid_id', 'audit_unavailable'] },
    schema: {
      tags,
      summary: 'Assemble the signed proof bundle of one decision',
      operationId: 'assembleBundle',
      description:
        'Binds the decision to its whole evidence chain in one signed `ns.authority_proof_bundle.v1`: purpose ' +
        'manifest, scope and state snapshots, runtime decision, decision map, evidence pack, delegation chain, ' +
        'replay proof, a signed checkpoint with the inclusion proof of the decision entry, rule pack refs and ' +
        'conformance profiles, each listed in `references` with the SHA-256 of its RFC 8785 bytes. It verifies ' +
        'offline with the JWKS alone. Stored write-once, answered 201; may sign a checkpoint (503 ' +
        '`audit_unavailable`). A principal credential assembles bundles of its own decisions only.',
      body: AssembleBody,
      response: { 201: Open('`ns.authority_proof_bundle.v1`, signed') },
    },
    handler: async (req, reply) => {
      const { bundleId, text } = await assembleBundle(ctx, req.credential, req.body);
      const body: unknown = text; // the stored bytes as they are: a string payload skips serialisation
      return reply
        .code(201)
        .header('location', `/v1/bundles/${bundleId}`)
        .type(json)
        .send(body as object);
    },
  });

  r.get('/v1/bundles/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'A stored proof bundle, byte for byte',
      operationId: 'getBundle',
      description: 'The signed bundle exactly as assembled (RFC 8785 JSON). A principal reads its own decisions only.',
      params: IdParams,
      response: { 200: Open('`ns.authority_proof_bundle.v1`, signed') },
    },
    handler: async (req, reply) => {
      const body: unknown = await getBundle(ctx, req.credential, req.params.id);
      return reply.type(json).send(body as object);
    },
  });

  r.get('/v1/bundles/:id/parts/:name', {
    config: { roles },
    schema: {
      tags,
      summary: "One part of a bundle: what its reference's `href` resolves to",
      operationId: 'getBundlePart',
      description:
        'The part exactly as the bundle holds it, as RFC 8785 JSON: its SHA-256 is the `sha256` of its reference.',
      params: PartParams,
      response: { 200: Type.Unknown({ description: 'the part (an object, an array, or null)' }) },
    },
    handler: async (req, reply) => {
      const body: unknown = await getBundlePart(ctx, req.credential, req.params.id, req.params.name);
      return reply.type(json).send(body as object);
    },
  });

  r.post('/v1/bundles/verify', {
    config: { roles, errors: ['reference_invalid'] },
    schema: {
      tags,
      summary: 'Verify a proof bundle: the ten checks, answered as a signed result',
      operationId: 'verifyBundle',
      description:
        'Runs the ten checks in order (bundle_signature, references_digest, decision_map_signature, ' +
        'evidence_pack_signature, delegation_chain_signatures, delegation_attenuation, checkpoint_signature, ' +
        'audit_inclusion, replay_equal, temporal_validity) and answers a signed `ns.bundle_verification.v1`, ' +
        '200 also when the bundle is invalid. Judged against this service keys and audit log only: the answer is ' +
        'signed by this service, which vouches for no key it did not choose, so `jwks` may only narrow its keys ' +
        '(422 `reference_invalid` naming a key it does not publish). A bundle of another deployment is verified ' +
        'offline against that deployment JWKS: `aar verify-bundle --jwks` and the SDKs run the same checks.',
      body: VerifyBody,
      response: { 200: Verification },
    },
    handler: async (req) => verifyBundleOnServer(ctx, req.body.bundle, req.body.jwks as Jwks | undefined),
  });
}
