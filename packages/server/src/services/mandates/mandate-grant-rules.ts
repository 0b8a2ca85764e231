/**
 * Who may turn a mandate or allowance into a grant under a parent grant: an admin credential, or a principal
 * credential bound to the chain's principal (the person or organisation whose card it is). The delegator's signed
 * statement of POST /v1/grants is not asked for: the mandate is the consent, signed by its issuer and the principal's
 * device (AP2), or handed over by the principal's PSP (ACP) under the principal's own credential. An agent's
 * credential never may: an agent cannot widen or renew its own authority by presenting a document.
 */
import { AarError } from '@aar/core';
import type { Credential } from '../../http/fastify-types.ts';
import type { DelegationRules } from '../grants/delegate-grant.ts';

export const MANDATE_GRANT_RULES: DelegationRules = {
  verifyStatement: false,
  requireRight(credential: Credential | null, principalId: string): void {
    if (credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
    if (credential.role === 'admin') return;
    if (credential.role === 'principal' && credential.principal_entity_id === principalId) return;
    throw new AarError(
      'forbidden',
      `only an admin or a principal credential of \`${principalId}\` may bring a mandate under its grant`,
    );
  },
};
