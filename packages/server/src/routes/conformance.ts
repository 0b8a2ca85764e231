/**
 * The conformance kit over HTTP (CONTRACT section 14, docs/conformance.md): the ten profiles and the installed
 * fixtures (public, like the event catalogue: they describe the contract, not this deployment's data), and
 * self-runs: the service runs the kit against itself over loopback HTTP and signs the report.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CONFORMANCE_PREVIEW_PROFILE_DEFINITIONS,
  CONFORMANCE_PROFILE_DEFINITIONS,
  isPreviewConformanceProfile,
  KIT_PROFILE_IDS,
  SIGNING_PROFILE_DEFINITIONS,
} from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getConformanceRun } from '../services/conformance/conformance-runs.ts';
import { retireRun } from '../services/conformance/retire-run.ts';
import { installedKit, runConformanceOnSelf } from '../services/conformance/run-self.ts';
import { IdParams } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** the ten, then the preview profiles (a preview profile runs only when named, and alone) */
const ProfileId = Type.Unsafe<string>({ type: 'string', enum: [...KIT_PROFILE_IDS] });

const PreviewProfile = Type.Object({
  profile: ProfileId,
  title: Type.String(),
  description: Type.String(),
  preview: Type.Literal(true, { description: 'a preview profile: runs only when named, alone, and earns no badge' }),
  fixtures: Type.Integer({ description: 'fixtures of this profile in the installed kit' }),
});

const Profile = Type.Object({
  profile: ProfileId,
  title: Type.String(),
  description: Type.String(),
  named_in_spec: Type.Boolean({ description: 'one of the five profiles the specification names' }),
  fixtures: Type.Integer({ description: 'fixtures of this profile in the installed kit' }),
});

const SigningProfile = Type.Object({
  profile: Type.String({ description: '`ns.webhooks.<profile>.v1`, the name connector manifests use' }),
  title: Type.String(),
  description: Type.String({ description: 'what a receiver that verifies it checks' }),
  conformance_profile: Type.Literal('ns.webhooks.v1', {
    description: 'the conformance profile whose fixtures cover webhook endpoints and deliveries',
  }),
});

const FixtureSummary = Type.Object({
  fixture_id: Type.String(),
  profile: ProfileId,
  title: Type.String(),
  description: Type.Optional(Type.String()),
  world: Type.Optional(Type.String({ description: 'the world whose steps run first' })),
  steps: Type.Integer({ description: "the fixture's own steps (the world's not counted)" }),
  file: Type.String({ description: 'path in the kit folder' }),
  fixture: Open('the fixture document itself (docs/conformance.md "Fixture format")'),
});

const RunBody = Type.Object(
  {
    profiles: Type.Optional(
      Type.Array(ProfileId, {
        minItems: 1,
        maxItems: 10,
        uniqueItems: true,
        description:
          'default: all ten. A preview profile (`ns.preview.v1_1`) runs only when named here, and alone: the report ' +
          'says `preview: true` and certification refuses it',
      }),
    ),
  },
  { additionalProperties: false },
);

export async function conformanceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['conformance'];

  r.get('/v1/conformance/profiles', {
    config: { public: true },
    schema: {
      tags,
      summary: 'The ten conformance profiles, with the number of installed fixtures of each, and the signing profiles',
      operationId: 'listConformanceProfiles',
      description:
        'The profiles of the conformance kit (the five the specification names and five of this service), what ' +
        'passing each shows, and how many fixtures of each the installed kit has; and the three webhook signing ' +
        'profiles (`signing_profiles`: `ns.webhooks.shared_secret.v1`, `.asymmetric.v1`, `.cose.v1`), which ' +
        'connector manifests name in `supported_profiles` beside the conformance profiles. Public: the same on ' +
        'every deployment of this version.',
      security: [],
      response: {
        200: Type.Object({
          kit_version: Type.String(),
          profiles: Type.Array(Profile),
          preview_profiles: Type.Array(PreviewProfile, {
            description: 'PREVIEW profiles: never in a default run, never attested (docs/conformance.md "Preview")',
          }),
          signing_profiles: Type.Array(SigningProfile),
        }),
      },
    },
    handler: async () => {
      const { kit } = installedKit();
      return {
        kit_version: kit.version,
        profiles: CONFORMANCE_PROFILE_DEFINITIONS.map((p) => ({
          ...p,
          fixtures: kit.fixtures.filter((f) => f.fixture.profile === p.profile).length,
        })),
        preview_profiles: CONFORMANCE_PREVIEW_PROFILE_DEFINITIONS.map((p) => ({
          ...p,
          fixtures: kit.preview.fixtures.filter((f) => f.fixture.profile === p.profile).length,
        })),
        signing_profiles: [...SIGNING_PROFILE_DEFINITIONS],
      };
    },
  });

  r.get('/v1/conformance/fixtures', {
    config: { public: true },
    schema: {
      tags,
      summary: 'The installed conformance fixtures (optionally of one profile)',
      operationId: 'listConformanceFixtures',
      description:
        'Every fixture of the installed kit, in id order, with the fixture document itself: the requests it ' +
        'sends and what it expects, so a runner in any language can execute it. `profile` narrows the list.',
      security: [],
      querystring: Type.Object({ profile: Type.Optional(ProfileId) }, { additionalProperties: false }),
      response: {
        200: Type.Object({
          kit_version: Type.String(),
          kit_digest: Type.String({ description: 'sha-256 over every fixture and world file' }),
          fixtures: Type.Array(FixtureSummary),
        }),
      },
    },
    handler: async (req) => {
      const { kit } = installedKit();
      const wanted = req.query.profile;
      return {
        kit_version: kit.version,
        kit_digest: kit.digest,
        // the preview fixtures are listed only when their profile is asked for (the default list is the stable kit)
        fixtures: (wanted !== undefined && isPreviewConformanceProfile(wanted) ? kit.preview.fixtures : kit.fixtures)
          .filter((f) => wanted === undefined || f.fixture.profile === wanted)
          .map(({ fixture, file }) => ({
            fixture_id: fixture.fixture_id,
            profile: fixture.profile,
            title: fixture.title,
            ...(fixture.description === undefined ? {} : { description: fixture.description }),
            ...(fixture.world === undefined ? {} : { world: fixture.world }),
            steps: fixture.steps.length,
            file,
            fixture: fixture as unknown as Record<string, unknown>,
          })),
      };
    },
  });

  r.post('/v1/conformance/runs', {
    config: { roles: ['admin'], errors: ['conflict'] },
    schema: {
      tags,
      summary: 'Run the conformance kit against this service and sign the report',
      operationId: 'createConformanceRun',
      description:
        'Runs the installed fixtures of `profiles` (default all) against this instance over loopback HTTP, ' +
        'black-box, exactly as `aar conformance run` would from outside, with an admin credential minted for ' +
        'the run and revoked when it ends. Answers once the run is over (seconds to a minute) with the signed ' +
        '`ns.conformance_report.v1`, also when fixtures failed (`passed: false`); the report is stored for ' +
        'GET /v1/conformance/runs/{id}. 409 `conflict` while another run is going on this instance.',
      body: RunBody,
      response: { 201: Open('`ns.conformance_report.v1`, signed') },
    },
    handler: async (req, reply) => {
      const report = await runConformanceOnSelf(ctx, req.credential, {
        profiles: req.body.profiles,
        loopbackUrl: loopbackUrl(req),
      });
      return reply.code(201).send(report as unknown as Record<string, unknown>);
    },
  });

  r.get('/v1/conformance/runs/:id', {
    config: { roles: ['auditor'] },
    schema: {
      tags,
      summary: 'A stored conformance report',
      operationId: 'getConformanceRun',
      description:
        'The signed `ns.conformance_report.v1` of a self-run, as it was signed: verify it offline against ' +
        'the JWKS. Reports are write-once.',
      params: IdParams,
      response: { 200: Open('`ns.conformance_report.v1`, signed') },
    },
    handler: async (req) => (await getConformanceRun(ctx, req.params.id)) as unknown as Record<string, unknown>,
  });

  r.post('/v1/conformance/runs/:id/retire', {
    config: { roles: ['admin'] },
    schema: {
      tags,
      summary: 'Retire what a conformance run created',
      operationId: 'retireConformanceRun',
      description:
        'What the requests of run `id` created (the runner names its run in the `AAR-Conformance-Run` header, ' +
        '`ns:conformance_report:<uuid>`) is retired: webhook endpoints deleted, credentials and grants revoked, ' +
        'entities tombstoned, listings, merchants and card tokens withdrawn. It is left out of the default lists, ' +
        'search and trust scores from its creation on (`include_conformance=true` lists it). The runner calls this ' +
        'when a run ends; idempotent (counts what this call retired; `failed`: left for a later call).',
      params: IdParams,
      response: {
        200: Type.Object({ run_id: Type.String(), retired: RetiredKinds, failed: Type.Integer() }),
      },
    },
    handler: async (req) => retireRun(ctx, req.credential, req.params.id),
  });
}

const RetiredKinds = Type.Object({
  webhook_endpoint: Type.Integer({ description: 'deleted' }),
  token: Type.Integer({ description: 'revoked' }),
  grant: Type.Integer({ description: 'revoked' }),
  entity: Type.Integer({ description: 'tombstoned' }),
  listing: Type.Integer({ description: 'withdrawn (left out of search and scores)' }),
  card_token: Type.Integer({ description: 'withdrawn (left out of the default list)' }),
  merchant: Type.Integer({ description: 'withdrawn (left out of the default list)' }),
});

/** Where this instance itself listens: the socket the request came in on, as a loopback URL when it is wildcard. */
function loopbackUrl(req: FastifyRequest): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const port = req.socket.localPort;
  const host = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address.replace(/^::ffff:/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
