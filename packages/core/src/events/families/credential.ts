/** `ns.credential.*`: API tokens (POST/DELETE /v1/tokens, `aar tokens create|revoke`, the bootstrap token). */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, oneOf, stateChange, subject } from '../schema-parts.ts';

const TOKEN = subject(['token'], 'the credential, `ns:token:<uuid>`');
const ROLE = oneOf(['admin', 'runtime', 'principal', 'auditor', 'pep']);

export const CREDENTIAL_EVENTS = [
  defineEventType({
    event_type: 'ns.credential.created',
    description:
      'an API token is issued (`POST /v1/tokens`, `aar tokens create`, the bootstrap token); the principal is set ' +
      'for the `principal` role only, the actor is null when the CLI issued it',
    subject_ref: TOKEN,
    reason_codes: ['credential_issued'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'sometimes',
    data_schema: closedObject({ role: ROLE }),
  }),
  defineEventType({
    event_type: 'ns.credential.revoked',
    description:
      'an API token is revoked (`DELETE /v1/tokens/{id}`, `aar tokens revoke`), or with its principal when the ' +
      'principal is erased (`entity_erased`): it is refused from the next request',
    subject_ref: TOKEN,
    reason_codes: ['credential_revoked', 'entity_erased'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'sometimes',
    data_schema: closedObject({ role: ROLE, ...stateChange(['active'], ['revoked']) }),
  }),
];
