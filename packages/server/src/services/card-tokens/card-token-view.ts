import { cardCredentialId } from '@aar/core';
import type { Selectable } from 'kysely';
import type { CardTokensTable } from '../../store/index.ts';

/** The network token itself is write-only: it is never returned, listed or put in an event. */
export interface CardTokenView {
  card_token_id: string;
  credential_id: string;
  principal_entity_id: string;
  network: string | null;
  last4: string | null;
  expires: string | null;
  state: CardTokensTable['state'];
  created_at: string;
  updated_at: string;
}

export function cardTokenView(row: Selectable<CardTokensTable>): CardTokenView {
  const local = row.card_token_id.slice('ns:card_token:'.length);
  return {
    card_token_id: row.card_token_id,
    credential_id: cardCredentialId(local),
    principal_entity_id: row.principal_entity_id,
    network: row.network,
    last4: row.last4,
    expires: row.expires,
    state: row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
