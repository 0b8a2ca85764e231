import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AarError } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { createMerchant } from '../services/merchants/create-merchant.ts';
import { MERCHANT_CATEGORY_PATTERN } from '../services/merchants/merchant-category.ts';
import { merchantView } from '../services/merchants/merchant-view.ts';
import { notRunArtifact, includesRunArtifacts } from '../services/conformance/run-artifacts.ts';
import { includeConformanceProperty } from './include-conformance-query.ts';
import { pageQueryProperties, pageRequest, pageSchema, toPage } from './pagination.ts';
import { IdParams, Timestamp } from './schemas.ts';

const Merchant = Type.Object({
  merchant_id: Type.String({ description: 'the plain id that `resource.merchant_id` carries' }),
  display_name: Type.String(),
  category: Type.String(),
  jurisdiction: Type.String(),
  state: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const CreateMerchantBody = Type.Object(
  {
    id: Type.String({ description: '`[A-Za-z0-9._-]{1,128}`' }),
    display_name: Type.String({ minLength: 1, maxLength: 256 }),
    category: Type.String({
      pattern: MERCHANT_CATEGORY_PATTERN,
      description: 'ISO 18245 MCC ("5411") or a named category',
    }),
    jurisdiction: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
  },
  { additionalProperties: false },
);

export async function merchantRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['merchants'];

  r.post('/v1/merchants', {
    config: { roles: ['admin'], errors: ['invalid_id', 'conflict'] },
    schema: {
      tags,
      summary: 'Register a merchant with its category and jurisdiction',
      operationId: 'createMerchant',
      description:
        "Registers the merchant that an authorize request's `resource.merchant_id` names, with the category and " +
        'jurisdiction that grants allow or block, and records `ns.merchant.created`. `id` is the plain id, chosen ' +
        'by you; an existing id is 409 `conflict`. A purchase at an unregistered merchant is denied (`merchant_unknown`).',
      body: CreateMerchantBody,
      response: { 201: Merchant },
    },
    handler: async (req, reply) => reply.code(201).send(await createMerchant(ctx, req.credential, req.body)),
  });

  r.get('/v1/merchants', {
    config: { roles: ['admin', 'auditor', 'runtime'] },
    schema: {
      tags,
      summary: 'List merchants',
      operationId: 'listMerchants',
      description:
        'Merchants in registration order, a page at a time (`limit`, then `cursor` = the previous `next_cursor`; ' +
        '`null` at the end). Read-only for runtime and auditor credentials. What conformance-kit runs created is ' +
        'left out unless `include_conformance=true`.',
      querystring: Type.Object(
        { ...pageQueryProperties, ...includeConformanceProperty },
        { additionalProperties: false },
      ),
      response: { 200: pageSchema(Merchant) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      let query = ctx.store.db
        .selectFrom('merchants')
        .selectAll()
        .where('seq', '>', page.afterSeq)
        .orderBy('seq')
        .limit(page.limit + 1);
      if (!includesRunArtifacts(req.query)) query = query.where(notRunArtifact('merchants.merchant_id'));
      const rows = await query.execute();
      return toPage(rows, page.limit, merchantView);
    },
  });

  r.get('/v1/merchants/:id', {
    config: { roles: ['admin', 'auditor', 'runtime'] },
    schema: {
      tags,
      summary: 'Read a merchant',
      operationId: 'getMerchant',
      description:
        'One merchant by its plain id (the value of `resource.merchant_id`), with the category and jurisdiction ' +
        'an authorization compares against the grant.',
      params: IdParams,
      response: { 200: Merchant },
    },
    handler: async (req) => {
      const row = await ctx.store.db
        .selectFrom('merchants')
        .selectAll()
        .where('merchant_id', '=', req.params.id)
        .executeTakeFirst();
      if (!row) throw new AarError('not_found', `merchant \`${req.params.id}\` does not exist`);
      return merchantView(row);
    },
  });
}
