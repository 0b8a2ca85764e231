import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { fieldError } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { DEPRECATED_IN_1_0_0, markDeprecated } from '../http/deprecation.ts';
import { getEvidencePack } from '../services/evidence/get-evidence-pack.ts';
import { verifyEvidencePackOnServer } from '../services/evidence/verify-evidence-pack-on-server.ts';
import { IdParams } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

const Check = Type.Object({ check: Type.String(), valid: Type.Boolean(), failure: Type.Optional(Type.String()) });

const VerificationResult = Type.Object({
  valid: Type.Boolean({ description: 'every check passed' }),
  algorithm: Type.String(),
  key_id: Type.Union([Type.String(), Type.Null()]),
  replay_decision: Type.Union([Open('decide on the pack snapshot, request and now; `matches`'), Type.Null()]),
  checks: Type.Array(Check),
});

/**
 * The body of POST /v1/evidence-packs/verify: `{ "pack": … }`, the shape `POST /v1/bundles/verify` takes
 * (`{ "bundle": … }`). The pack as the whole body (bare), the shape of 0.x, keeps working until its sunset, answered
 * with the deprecation headers (http/deprecation.ts); in the OpenAPI document it is the alternative marked
 * `deprecated: true`. An `ns.evidence_pack.v1` has no `pack` member, so the member tells the two apart.
 */
const WrappedPack = Type.Object(
  { pack: Open('an `ns.evidence_pack.v1`, as `GET /v1/evidence-packs/{id}` answers it') },
  { additionalProperties: false, title: 'EvidencePackVerifyRequest' },
);
const BarePack = Type.Object(
  {},
  {
    additionalProperties: true,
    deprecated: true,
    title: 'BareEvidencePack',
    description:
      'deprecated since 1.0.0 (sunset 2027-11-28): the pack as the whole body; send `{ "pack": … }` instead. ' +
      'Answered with `Deprecation`, `Sunset` and `Link: rel="deprecation"` headers (docs/versioning.md)',
  },
);
const VerifyBody = Type.Union([WrappedPack, BarePack], {
  description: '`{ "pack": <ns.evidence_pack.v1> }`; the bare pack is deprecated',
});

/** The pack of a verify body, and whether it came in the deprecated bare shape. */
function packOf(body: Record<string, unknown>): { pack: Record<string, unknown>; bare: boolean } {
  if (!Object.hasOwn(body, 'pack')) return { pack: body, bare: true };
  const pack = body.pack;
  if (typeof pack !== 'object' || pack === null || Array.isArray(pack)) {
    throw fieldError('invalid_request', '/pack', 'must be an object: the `ns.evidence_pack.v1` to verify');
  }
  const extra = Object.keys(body).find((name) => name !== 'pack');
  if (extra !== undefined) throw fieldError('invalid_request', `/${extra}`, 'is not a member of `{ pack }`');
  return { pack: pack as Record<string, unknown>, bare: false };
}

export async function evidencePackRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['evidence'];

  r.get('/v1/evidence-packs/:id', {
    config: { roles: ['runtime', 'auditor', 'principal'], errors: ['audit_unavailable'] },
    schema: {
      tags,
      summary: 'The signed evidence pack of a decision (assembled on first request, then always the same bytes)',
      operationId: 'getEvidencePack',
      description:
        'The `ns.evidence_pack.v1` of a decision: its request, snapshot, decision map, audit entry with its ' +
        'inclusion proof and a signed checkpoint, signed by the service so it verifies offline against the JWKS. ' +
        'Assembled and stored on the first read (which may sign a checkpoint, so it can answer 503 ' +
        "`audit_unavailable`), then served byte for byte. A principal credential reads its own principal's packs only.",
      params: IdParams,
      response: { 200: Open('`ns.evidence_pack.v1`, signed') },
    },
    handler: async (req, reply) => {
      // The stored bytes as they are: a string payload skips serialisation (the schema above only documents it).
      const text: unknown = await getEvidencePack(ctx, req.credential, req.params.id);
      return reply.type('application/json; charset=utf-8').send(text as Record<string, unknown>);
    },
  });

  r.post('/v1/evidence-packs/verify', {
    config: { roles: ['runtime', 'auditor'] },
    schema: {
      tags,
      summary: 'Verify an evidence pack server-side: signatures, audit proof, checkpoint and replay',
      operationId: 'verifyEvidencePack',
      description:
        'Checks a pack you hold: its signature against the keys of this service, the audit inclusion proof ' +
        "against the signed checkpoint, and a replay of the decision from the pack's own snapshot. Answers 200 " +
        'with `valid` and one entry per check, also when the pack is invalid. It changes nothing, except that a ' +
        'pack this service signed whose replay differs emits `ns.decision.replay_mismatch`. The same checks run ' +
        'offline in core and the SDKs. The body is `{ "pack": … }`, like `POST /v1/bundles/verify`\'s ' +
        '`{ "bundle": … }`; the pack as the whole body still works until 2027-11-28 but is deprecated: those ' +
        'answers carry `Deprecation`, `Sunset` and `Link: rel="deprecation"` (docs/versioning.md).',
      body: VerifyBody,
      response: { 200: VerificationResult },
    },
    handler: async (req, reply) => {
      const { pack, bare } = packOf(req.body as Record<string, unknown>);
      if (bare) markDeprecated(reply, DEPRECATED_IN_1_0_0);
      return verifyEvidencePackOnServer(ctx, req.credential, pack);
    },
  });
}
