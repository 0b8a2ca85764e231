/** `ns.audit.*`: the audit chain's own milestones (CONTRACT section 8). */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, COUNT } from '../schema-parts.ts';

export const AUDIT_EVENTS = [
  defineEventType({
    event_type: 'ns.audit.checkpoint_signed',
    description:
      'the service signs a checkpoint of the audit log (at least every `AAR_CHECKPOINT_INTERVAL` seconds while ' +
      'entries arrive): a consumer may fetch it and check consistency with the last one it holds',
    subject_ref: { description: 'the checkpoint, `ns:checkpoint:<tree size>`', pattern: '^ns:checkpoint:[1-9][0-9]*$' },
    reason_codes: ['checkpoint_signed'],
    principal_entity_id: 'never',
    actor_entity_id: 'never',
    data_schema: closedObject({
      origin: { type: 'string', minLength: 1, description: 'the log origin, fixed when the store was created' },
      size: { ...COUNT, minimum: 1, description: 'the tree size the checkpoint commits to' },
      root_hash: {
        type: 'string',
        pattern: '^[A-Za-z0-9+/]{43}=$',
        description: 'RFC 9162 root hash, standard base64',
      },
    }),
  }),
];
