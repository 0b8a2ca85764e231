/**
 * `GET /v1/tokens/self`: which credential the caller holds (role, principal), so a client such as the console can
 * show what that role may do without probing routes and collecting 403s. Never the secret, which is not stored.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AarError } from '@aar/core';
import type { AppContext } from '../app-context.ts';

const Self = Type.Object({
  token_id: Type.String(),
  role: Type.Union([
    Type.Literal('admin'),
    Type.Literal('runtime'),
    Type.Literal('principal'),
    Type.Literal('auditor'),
    Type.Literal('pep'),
  ]),
  principal_entity_id: Type.Union([Type.String(), Type.Null()], { description: 'set for the `principal` role only' }),
});

export async function tokenSelfRoutes(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/v1/tokens/self', {
    config: { roles: ['runtime', 'principal', 'auditor'] },
    schema: {
      tags: ['credentials'],
      summary: 'The credential this request was made with',
      operationId: 'getOwnToken',
      description:
        'The id, role and (for a principal credential) principal of the bearer token sent, for any role. It ' +
        'never returns a secret: only its hash is kept.',
      response: { 200: Self },
    },
    handler: async (req) => {
      const credential = req.credential;
      if (credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
      return {
        token_id: credential.token_id,
        role: credential.role,
        principal_entity_id: credential.principal_entity_id,
      };
    },
  });
}
