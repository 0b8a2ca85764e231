/**
 * Sector packs (CONTRACT section 19): shipped with the release, listed and served signed; applying one to a principal
 * activates all its rule packs in one transaction (administrators only).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { applySectorPack } from '../services/policy/apply-sector-pack.ts';
import { nameParam } from '../services/policy/policy-ids.ts';
import { requireSectorPack, sectorPackCatalogue, signedSectorPack } from '../services/policy/sector-packs.ts';
import { Activation, ActivationMode, AnyDocument, NameParams, policyReaders } from './policy-schemas.ts';

const SectorPackItem = Type.Object(
  {
    sector_pack_id: Type.String(),
    name: Type.String(),
    version: Type.String(),
    title: Type.String(),
    sector: Type.String(),
    rule_packs: Type.Array(Type.String()),
    digest: Type.String(),
  },
  { additionalProperties: false },
);

const ApplyBody = Type.Object(
  {
    principal_entity_id: Type.String({ minLength: 1, maxLength: 200 }),
    mode: ActivationMode,
  },
  { additionalProperties: false },
);

const Application = Type.Object(
  {
    sector_pack_id: Type.String(),
    version: Type.String(),
    digest: Type.String(),
    principal_entity_id: Type.String(),
    mode: ActivationMode,
    activations: Type.Array(Activation),
  },
  { additionalProperties: false },
);

export async function sectorPackRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['policy'];

  r.get('/v1/sector-packs', {
    config: { roles: policyReaders },
    schema: {
      tags,
      summary: 'The sector packs shipped with this release',
      operationId: 'listSectorPacks',
      description:
        'Sector packs are data of the release (packages/server/policy/sector-packs): each with the rule packs it ' +
        'names and its digest. One naming a sector pack (a cycle) or malformed is left out.',
      response: { 200: Type.Object({ items: Type.Array(SectorPackItem) }, { additionalProperties: false }) },
    },
    handler: async () => ({
      items: [...sectorPackCatalogue(ctx).values()].map((e) => ({
        sector_pack_id: e.document.sector_pack_id,
        name: e.name,
        version: e.document.version,
        title: e.document.title,
        sector: e.document.sector,
        rule_packs: e.document.rule_packs,
        digest: e.digest,
      })),
    }),
  });

  r.get('/v1/sector-packs/:name', {
    config: { roles: policyReaders },
    schema: {
      tags,
      summary: 'One sector pack, signed by the service',
      operationId: 'getSectorPack',
      description: 'The `ns.sector_pack.v1` document, signed by the service (CONTRACT section 4).',
      params: NameParams,
      response: { 200: AnyDocument('ns.sector_pack.v1') },
    },
    handler: async (req) => signedSectorPack(ctx, requireSectorPack(ctx, nameParam('sector_pack', req.params.name))),
  });

  r.post('/v1/sector-packs/:name/apply', {
    config: { roles: ['admin'], errors: ['reference_not_found', 'reference_invalid', 'conflict'] },
    schema: {
      tags,
      summary: 'Activate every rule pack of a sector pack for one principal, all or none',
      operationId: 'applySectorPack',
      description:
        'One transaction: if any of its packs cannot be activated (not published, a dictionary not published, ' +
        'already active for the principal in that mode, the principal unknown) nothing is activated, and the ' +
        'refusal names the sector pack entry (`/rule_packs/<i>`, a pointer into the sector pack) or the field. ' +
        'Records one `ns.rule_activation.created` per pack and `ns.sector_pack.applied`.',
      params: NameParams,
      body: ApplyBody,
      response: { 201: Application },
    },
    handler: async (req, reply) =>
      reply
        .code(201)
        .send(await applySectorPack(ctx, req.credential, nameParam('sector_pack', req.params.name), req.body)),
  });
}
