/**
 * `ns.mandate.*` and `ns.allowance.*` (CONTRACT section 21, issue 29): a payment-protocol mandate (AP2) or allowance
 * (ACP) accepted as a grant, and its revocation. Ids and digests only: the document itself (which may name payees and
 * the checkout) stays in the service's store, and the PSP's vaulted token id is never in an event.
 */
import { defineEventType } from '../event-type-definition.ts';
import { BOOLEAN, closedObject, id, nullable, oneOf, TIMESTAMP, type JsonSchema } from '../schema-parts.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const MANDATE_ID = `ns:mandate:${UUID}`;
const ALLOWANCE_ID = `ns:allowance:${UUID}`;
const mandateId = (description: string): JsonSchema => ({ type: 'string', pattern: `^${MANDATE_ID}$`, description });
const allowanceId = (description: string): JsonSchema => ({
  type: 'string',
  pattern: `^${ALLOWANCE_ID}$`,
  description,
});
const DIGEST: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  description: 'base64url SHA-256 of the stored document (AP2: the presentation as submitted; ACP: RFC 8785 JSON)',
};
const CONSTRAINTS_DIGEST: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  description: 'base64url SHA-256 of the constraints as stored (the mapping GET /v1/mandates/{id} shows)',
};
const TEXT: JsonSchema = { type: 'string', minLength: 1, maxLength: 256 };

export const MANDATE_EVENTS = [
  defineEventType({
    event_type: 'ns.mandate.accepted',
    description:
      'an AP2 mandate presentation is verified and becomes a grant delegated under the principal\u2019s grant ' +
      '(`POST /v1/mandates`); the grant\u2019s own `ns.authority.delegated` is written in the same transaction',
    subject_ref: { description: 'the mandate, `ns:mandate:<uuid>`', pattern: `^${MANDATE_ID}$` },
    reason_codes: ['mandate_accepted'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      mandate_id: mandateId('the mandate'),
      format: oneOf(['ap2']),
      digest: DIGEST,
      issuer: { ...TEXT, description: 'the registered issuer whose key verified the presentation' },
      grant_id: id('grant', 'the grant made from the mandate'),
      parent_grant_id: id('grant', 'the principal\u2019s grant it is delegated under'),
      grantee_entity_id: id('entity', 'the agent that holds the mandate\u2019s grant'),
      single_use: { ...BOOLEAN, description: 'a closed mandate: its grant allows one purchase' },
      expires_at: nullable(TIMESTAMP),
      checkout_session_id: nullable(TEXT),
      constraints_digest: CONSTRAINTS_DIGEST,
    }),
  }),
  defineEventType({
    event_type: 'ns.mandate.revoked',
    description:
      'a mandate\u2019s or allowance\u2019s grant is revoked: by `POST /v1/mandates/{id}/revoke`, or by the revocation ' +
      'cascade of a grant above it; written with that cascade\u2019s `ns.authority.revoked` events, same `reason_code`',
    subject_ref: {
      description: 'the mandate or allowance',
      pattern: `^(${MANDATE_ID}|${ALLOWANCE_ID})$`,
    },
    reason_codes: ['principal_revoked_authority', 'admin_revoked_authority'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      mandate_id: { type: 'string', pattern: `^(${MANDATE_ID}|${ALLOWANCE_ID})$`, description: 'the mandate' },
      format: oneOf(['ap2', 'acp']),
      digest: DIGEST,
      grant_id: id('grant', 'its grant, revoked'),
      revocation_root: id('grant', 'the grant the revoke was called on'),
      audit_ref: { type: 'string', pattern: `^ns:audit:${UUID}$`, description: 'the audit entry of the cascade' },
    }),
  }),
];

export const ALLOWANCE_EVENTS = [
  defineEventType({
    event_type: 'ns.allowance.accepted',
    description:
      'an ACP `delegate_payment` allowance becomes a one-use grant delegated under the principal\u2019s grant ' +
      '(`POST /v1/allowances`); the grant\u2019s own `ns.authority.delegated` is written in the same transaction',
    subject_ref: { description: 'the allowance, `ns:allowance:<uuid>`', pattern: `^${ALLOWANCE_ID}$` },
    reason_codes: ['allowance_accepted'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      allowance_id: allowanceId('the allowance'),
      format: oneOf(['acp']),
      digest: DIGEST,
      grant_id: id('grant', 'the one-use grant made from the allowance'),
      parent_grant_id: id('grant', 'the principal\u2019s grant it is delegated under'),
      grantee_entity_id: id('entity', 'the agent that holds the allowance\u2019s grant'),
      merchant_id: id('merchant_local', 'the merchant the allowance names (its ACP `merchant_id`)'),
      checkout_session_id: TEXT,
      expires_at: TIMESTAMP,
      constraints_digest: CONSTRAINTS_DIGEST,
    }),
  }),
];
