import type { Credential } from '../http/fastify-types.ts';

/** Who to name as the actor of an event: the principal a principal-credential acts for, else the credential. */
export function actorOf(credential: Credential | null): string | null {
  if (!credential) return null;
  return credential.principal_entity_id ?? credential.token_id;
}
