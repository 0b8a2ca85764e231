/**
 * `GET /v1/search/{id}`: a stored `ns.search_result.v1`, its RFC 8785 text exactly as signed and stored. Who may
 * read it again: `admin` and `auditor`; the token that searched; a `principal` credential of the principal it was
 * confined to. Anyone else gets 404, exactly as for an id that does not exist (existence is not disclosed).
 * INVARIANT: the stored text is checked against its digest column before it is served (an edited row is 503
 * `audit_unavailable`, never served as if signed).
 */
import { AarError, fieldError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { integrityFailure } from '../authorize/chained-state.ts';
import { textDigest } from './search-kinds.ts';

const ID = /^ns:search_result:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function readSearchResult(ctx: AppContext, credential: Credential, rawId: string): Promise<string> {
  if (!ID.test(rawId)) throw fieldError('invalid_id', '/params/id', 'must be `ns:search_result:<uuid>`');
  const row = await ctx.store.db
    .selectFrom('search_results')
    .select(['token_id', 'principal_entity_id', 'digest', 'document'])
    .where('search_result_id', '=', rawId)
    .executeTakeFirst();
  const visible =
    row !== undefined &&
    (credential.role === 'admin' ||
      credential.role === 'auditor' ||
      row.token_id === credential.token_id ||
      (credential.role === 'principal' &&
        row.principal_entity_id !== null &&
        row.principal_entity_id === credential.principal_entity_id));
  if (!row || !visible) throw new AarError('not_found', `search result \`${rawId}\` does not exist`);
  if (textDigest(row.document) !== row.digest) throw integrityFailure('search_results', rawId, 'document');
  return row.document;
}
