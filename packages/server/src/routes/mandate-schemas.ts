/** Schemas shared by the mandate, allowance and issuer routes (CONTRACT section 21); they feed the OpenAPI document. */
import { Type } from 'typebox';
import { GrantScope } from './grants.ts';
import { Timestamp } from './schemas.ts';

export const MandateState = Type.Union(
  [Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired'), Type.Literal('used')],
  {
    description:
      'derived: `revoked` when its grant is revoked, `expired` past `expires_at` or its grant\u2019s `valid_until`, ' +
      '`used` when a single-use one was spent (`used_by`), else `active`',
  },
);

/** The grant made from a mandate or allowance, as GET /v1/grants/{id} shows it. */
export const MandateGrant = Type.Object({
  grant_id: Type.String(),
  parent_grant_id: Type.Union([Type.String(), Type.Null()]),
  principal_entity_id: Type.String(),
  actor_entity_id: Type.String(),
  capability_id: Type.String(),
  resource_id: Type.String(),
  scope: GrantScope,
  state: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  depth: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
  link: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'the grant as signed by the service (`ns.authority_grant.v1`), with `mandate: { mandate_id, format, digest }`',
    },
  ),
});

const common = {
  digest: Type.String({ description: 'base64url SHA-256 of the stored document' }),
  principal_entity_id: Type.String(),
  actor_entity_id: Type.String({ description: 'the agent holding the grant' }),
  parent_grant_id: Type.String(),
  constraints: Type.Array(Type.Unknown(), { description: 'the constraints as recorded with the mandate' }),
  checkout_session_id: Type.Union([Type.String(), Type.Null()]),
  single_use: Type.Boolean({ description: 'its grant allows one purchase' }),
  expires_at: Type.Union([Timestamp, Type.Null()]),
  used_by: Type.Union([Type.String(), Type.Null()], {
    description: 'the allowed decision that spent a single-use mandate',
  }),
  state: MandateState,
  created_at: Timestamp,
  grant: MandateGrant,
};

export const Mandate = Type.Object({
  mandate_id: Type.String({ description: '`ns:mandate:<uuid>`' }),
  format: Type.Literal('ap2'),
  issuer: Type.Union([Type.String(), Type.Null()]),
  payees: Type.Record(Type.String(), Type.String(), { description: 'AP2 payee id -> merchant id, as given' }),
  ...common,
});

export const Allowance = Type.Object({
  allowance_id: Type.String({ description: '`ns:allowance:<uuid>`' }),
  format: Type.Literal('acp'),
  vaulted_token_id: Type.Union([Type.String(), Type.Null()], { description: 'the PSP\u2019s vaulted token id' }),
  ...common,
});

export const RevokeMandateResult = Type.Object({
  mandate_id: Type.String(),
  state: Type.Literal('revoked'),
  grant: Type.Object(
    {
      grant_id: Type.String(),
      state: Type.Literal('revoked'),
      revoked_count: Type.Integer(),
      already_revoked: Type.Boolean(),
      revoked_at: Timestamp,
      reason_code: Type.Union([Type.String(), Type.Null()]),
      audit_ref: Type.Union([Type.String(), Type.Null()]),
      elapsed_ms: Type.Number(),
    },
    { description: 'the revocation of its grant, as POST /v1/grants/{id}/revoke answers it' },
  ),
});
