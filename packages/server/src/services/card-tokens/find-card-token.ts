import { AarError, cardTokenId, parseCardTokenRef } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import type { CardTokensTable, Database } from '../../store/index.ts';

/** Accepts `ns:card_token:<id>` or `ns:credential:card-token:<id>`. */
export async function findCardToken(
  db: Kysely<Database>,
  ref: string,
  path: string,
): Promise<Selectable<CardTokensTable>> {
  const id = cardTokenId(parseCardTokenRef(ref, path));
  const row = await db.selectFrom('card_tokens').selectAll().where('card_token_id', '=', id).executeTakeFirst();
  if (!row) throw new AarError('not_found', `card token \`${id}\` does not exist`);
  return row;
}
