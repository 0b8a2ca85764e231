import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { listIssuers, registerIssuer } from '../services/mandates/register-issuer.ts';
import { Timestamp } from './schemas.ts';

const Jwks = Type.Object(
  { keys: Type.Array(Type.Object({ kty: Type.String() }, { additionalProperties: true }), { maxItems: 32 }) },
  { additionalProperties: false, description: 'a JWKS of public EC (P-256, P-384) or OKP (Ed25519) keys' },
);

const Issuer = Type.Object({
  issuer: Type.String(),
  format: Type.Literal('ap2'),
  jwks: Jwks,
  jwks_uri: Type.Union([Type.String(), Type.Null()]),
  audit_ref: Type.String({ description: 'the audit entry committing to the registration' }),
  created_at: Timestamp,
});

const RegisterIssuerBody = Type.Object(
  {
    issuer: Type.String({ minLength: 1, maxLength: 256, description: 'the `iss` its mandates carry' }),
    format: Type.Literal('ap2'),
    jwks: Type.Optional(Type.Unknown({ description: 'the issuer\u2019s JWKS, inline' })),
    jwks_uri: Type.Optional(
      Type.String({ maxLength: 2048, description: 'https URL of the JWKS, fetched once now (SSRF-guarded)' }),
    ),
  },
  { additionalProperties: false },
);

/** Trusted AP2 issuers (CONTRACT section 21): a mandate's issuer key comes from these only. */
export async function mandateIssuerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['mandates'];

  r.post('/v1/mandate-issuers', {
    config: { roles: ['admin'], errors: ['conflict', 'reference_invalid'] },
    schema: {
      tags,
      summary: 'Register a trusted AP2 mandate issuer and its keys',
      operationId: 'createMandateIssuer',
      description:
        'Registers an issuer whose AP2 mandates the service accepts, with its JWKS given inline (`jwks`) or ' +
        'fetched once from `jwks_uri` now, through the same SSRF guard as webhook deliveries (https, no private ' +
        'addresses, no redirects, 64 KiB). A registration is write-once (a second one for the issuer is 409 ' +
        '`conflict`) and committed to by an audit entry. A mandate\u2019s issuer key comes from here only, never ' +
        'from the mandate.',
      body: RegisterIssuerBody,
      response: { 201: Issuer },
    },
    handler: async (req, reply) =>
      reply.code(201).send(
        await registerIssuer(ctx, req.credential, {
          issuer: req.body.issuer,
          format: req.body.format,
          ...(req.body.jwks !== undefined ? { jwks: req.body.jwks } : {}),
          ...(req.body.jwks_uri !== undefined ? { jwks_uri: req.body.jwks_uri } : {}),
        }),
      ),
  });

  r.get('/v1/mandate-issuers', {
    config: { roles: ['admin', 'auditor'] },
    schema: {
      tags,
      summary: 'List the trusted AP2 mandate issuers',
      operationId: 'listMandateIssuers',
      description:
        'Every registered issuer with the keys its mandates verify against (the JWKS stored at registration), in ' +
        'issuer order, with the audit entry that commits to each registration.',
      response: { 200: Type.Object({ items: Type.Array(Issuer) }) },
    },
    handler: async () => ({ items: await listIssuers(ctx) }),
  });
}
