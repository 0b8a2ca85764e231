/**
 * Who may read the graph (issue 30): an admin or an auditor, anything; a principal credential, its own principal's
 * part only. Checked before any answer is built, so a refused request discloses nothing beyond the refusal.
 * Attacker assumption: any credential may name any id; the id is never trusted to say whose it is: the owner is read
 * from the store (the card token's, the grant's principal).
 */
import { AarError } from '@aar/core';
import type { Credential } from '../../http/fastify-types.ts';

export function mayReadEverything(credential: Credential | null): boolean {
  return credential !== null && (credential.role === 'admin' || credential.role === 'auditor');
}

/** 403 unless the credential may read the graph of `principalEntityId`. */
export function assertGraphAccess(credential: Credential | null, principalEntityId: string): void {
  if (credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
  if (mayReadEverything(credential)) return;
  if (credential.role === 'principal' && credential.principal_entity_id === principalEntityId) return;
  throw new AarError('forbidden', `this credential may not read the authority graph of \`${principalEntityId}\``);
}

/** The principal a principal credential is bound to; undefined for admin and auditor (no restriction). */
export function restrictedPrincipal(credential: Credential | null): string | undefined {
  if (credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
  if (mayReadEverything(credential)) return undefined;
  if (credential.role === 'principal' && credential.principal_entity_id) return credential.principal_entity_id;
  throw new AarError('forbidden', 'this credential may not read the authority graph');
}
