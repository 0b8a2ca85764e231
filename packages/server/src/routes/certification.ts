import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { createAttestation, getAttestation } from '../services/certification/attestations.ts';
import { verifyAttestation } from '../services/certification/verify-attestation.ts';
import { IdParams } from './schemas.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): the certification programme may change incompatibly until its conformance suite is ' +
  'frozen; an attestation is a self-attestation by this deployment and carries no official badge. ';
const B64URL = '^[A-Za-z0-9_-]*$';

const Flattened = Type.Object(
  {
    protected: Type.String({ pattern: B64URL, maxLength: 4096 }),
    payload: Type.String({ pattern: B64URL, maxLength: 65536 }),
    signature: Type.String({ pattern: B64URL, maxLength: 512 }),
  },
  { additionalProperties: false, description: 'RFC 7515 flattened JSON serialisation' },
);

const Attestation = Type.Object(
  {
    attestation_id: Type.String({ description: '`ns:attestation:<uuid>`' }),
    preview: Type.Literal(true),
    conformance_report_id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    claims: Type.Object(
      {},
      { additionalProperties: true, description: 'the decoded `ns.certification_attestation.v1`' },
    ),
    jws: Type.Object({
      compact: Type.String({ description: 'RFC 7515 compact serialisation (EdDSA, RFC 8037)' }),
      json: Flattened,
    }),
  },
  { additionalProperties: false },
);

const Verification = Type.Object({
  valid: Type.Boolean(),
  attestation_id: Type.Union([Type.String(), Type.Null()]),
  checks: Type.Array(
    Type.Object({
      name: Type.Union([
        Type.Literal('signature'),
        Type.Literal('key_valid_at_issue'),
        Type.Literal('claims'),
        Type.Literal('conformance_report'),
        Type.Literal('recorded'),
      ]),
      ok: Type.Boolean(),
      detail: Type.Optional(Type.String()),
    }),
  ),
});

/** Certification (preview): self-attestations over conformance reports (CONTRACT section 14). */
export async function certificationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['certification'];
  const preview = { 'x-preview': true };

  r.post('/v1/certification/attestations', {
    config: { errors: ['reference_not_found', 'reference_invalid'] },
    schema: {
      ...preview,
      tags,
      summary: 'Sign a self-attestation over a passed conformance report (preview)',
      operationId: 'createCertificationAttestation',
      description:
        PREVIEW +
        'Signs, with the service key, a JWS (EdDSA) whose payload is an `ns.certification_attestation.v1` naming ' +
        'the stored conformance report and the SHA-256 of its RFC 8785 bytes; answers it in the compact and the ' +
        'flattened JSON serialisations, verifiable against the JWKS with any JOSE library. Only a report that ' +
        'passed can be attested (422 `reference_invalid`); an unknown report is 422 `reference_not_found`.',
      body: Type.Object(
        {
          conformance_report_id: Type.String({ maxLength: 128, description: '`ns:conformance_report:<uuid>`' }),
          statement: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
        },
        { additionalProperties: false },
      ),
      response: { 201: Attestation },
    },
    handler: async (req, reply) => reply.code(201).send(await createAttestation(ctx, req.credential, req.body)),
  });

  r.get('/v1/certification/attestations/:id', {
    config: { roles: ['auditor'] },
    schema: {
      ...preview,
      tags,
      summary: 'A stored self-attestation (preview)',
      operationId: 'getCertificationAttestation',
      description: PREVIEW + 'The attestation `ns:attestation:<uuid>` as it was signed, in both serialisations.',
      params: IdParams,
      response: { 200: Attestation },
    },
    handler: async (req) => getAttestation(ctx, req.params.id),
  });

  r.post('/v1/certification/verify', {
    config: { roles: ['auditor', 'runtime', 'principal'] },
    schema: {
      ...preview,
      tags,
      summary: 'Verify a self-attestation JWS against this service (preview)',
      operationId: 'verifyCertificationAttestation',
      description:
        PREVIEW +
        "Checks `jws` (compact string, or flattened JSON object) with EdDSA only, against this service's JWKS " +
        '(never a key the JWS names), then that the key was valid at `issued_at`, that the payload is an ' +
        'attestation of this issuer, that the conformance report it names is stored here with the same digest, ' +
        'and that this service issued it. Answers 200 with `valid` and each check, also when invalid.',
      body: Type.Object(
        { jws: Type.Union([Type.String({ maxLength: 100_000 }), Flattened]) },
        { additionalProperties: false },
      ),
      response: { 200: Verification },
    },
    handler: async (req) => verifyAttestation(ctx, req.body.jws),
  });
}
