import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';

const Jwk = Type.Object(
  {
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String(),
    kid: Type.String(),
    alg: Type.String(),
    use: Type.String(),
    valid_from: Type.String({ description: 'first time the key signed' }),
    valid_until: Type.Optional(Type.String({ description: 'set once rotated: it signs no more but still verifies' })),
  },
  { additionalProperties: false },
);

export async function jwksRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get('/.well-known/jwks.json', {
    config: { public: true },
    schema: {
      tags: ['keys'],
      summary: 'Public signing keys, current and rotated',
      operationId: 'getJwks',
      description:
        'The Ed25519 keys (RFC 8037 OKP JWKs) that verify every document this service signs: decision maps, ' +
        'evidence packs, grant links, checkpoints, webhooks of the asymmetric profile. A rotated key keeps ' +
        '`valid_until` and stays listed so that old documents still verify. Cacheable for 5 minutes.',
      security: [],
      response: { 200: Type.Object({ keys: Type.Array(Jwk) }) },
    },
    handler: async (_req, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return ctx.keys.jwks();
    },
  });
}
