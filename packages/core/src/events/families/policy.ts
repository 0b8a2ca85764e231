/**
 * Policy content (CONTRACT section 19): rule packs, activations, dictionaries, sector packs and backtests. One file,
 * five catalogue families (a family is the second segment of the type: `ns.rule_pack.*` is `rule_pack`). Every
 * change of a pack's or dictionary's state, and of an activation, is one of these events with its audit entry, in
 * the changing transaction; the data restates what the stored row must hold, so `GET /v1/audit/verify` and authorize
 * (services/policy/active-policy-set.ts) can check a row against the chain.
 */
import { defineEventType } from '../event-type-definition.ts';
import { anyId, closedObject, COUNT, nullable, oneOf } from '../schema-parts.ts';

const NAME = '[a-z][a-z0-9_-]{1,62}';
const VERSION = '[0-9A-Za-z.+-]{1,120}';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const DIGEST = {
  type: 'string',
  pattern: '^sha-256:[A-Za-z0-9_-]{43}$',
  description: '`sha-256:` + base64url(SHA-256(RFC 8785 bytes of the document without `signature`))',
};
const DOCUMENT_DIGEST = {
  type: 'string',
  pattern: '^sha-256:[A-Za-z0-9_-]{43}$',
  description: 'SHA-256 of the stored document (RFC 8785 bytes, signature included): what the chain commits it to',
};
const ORIGIN = oneOf(['shipped', 'operator'], '`shipped` with the release, or written by an operator');
const PACK_ID = { type: 'string', pattern: `^ns:rule_pack:${NAME}$` };
const DICTIONARY_ID = { type: 'string', pattern: `^ns:dictionary:${NAME}$` };
const SEMVER = { type: 'string', pattern: `^${VERSION}$` };
const ACTIVATION_ID = `^ns:rule_activation:${UUID}$`;
const versioned = (kind: string, what: string) => ({
  description: `${what}, \`ns:${kind}:<name>@<version>\``,
  pattern: `^ns:${kind}:${NAME}@${VERSION}$`,
});

export const RULE_PACK_EVENTS = [
  defineEventType({
    event_type: 'ns.rule_pack.drafted',
    description:
      'an operator stores a draft rule pack version, or replaces the draft of that version (`POST /v1/rule-packs`)',
    subject_ref: versioned('rule_pack', 'the pack version'),
    reason_codes: ['rule_pack_drafted'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      pack_id: PACK_ID,
      version: SEMVER,
      domain: oneOf(['purchase', 'generic']),
      origin: ORIGIN,
      document_digest: DOCUMENT_DIGEST,
    }),
  }),
  defineEventType({
    event_type: 'ns.rule_pack.published',
    description:
      'a rule pack version is published: its tests passed, it is signed by the service and immutable from now on ' +
      '(`POST /v1/rule-packs/{name}/versions/{version}/publish`); the shipped packs seeded at start are data of the ' +
      'release and emit none',
    subject_ref: versioned('rule_pack', 'the pack version'),
    reason_codes: ['rule_pack_published'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      pack_id: PACK_ID,
      version: SEMVER,
      domain: oneOf(['purchase', 'generic']),
      origin: ORIGIN,
      digest: DIGEST,
      document_digest: DOCUMENT_DIGEST,
    }),
  }),
  defineEventType({
    event_type: 'ns.rule_pack.retired',
    description:
      'a published rule pack version is retired: it can no longer be activated, and its active activations are ' +
      'deactivated in the same transaction (each with its own `ns.rule_activation.deactivated`)',
    subject_ref: versioned('rule_pack', 'the pack version'),
    reason_codes: ['rule_pack_retired'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      pack_id: PACK_ID,
      version: SEMVER,
      digest: DIGEST,
      deactivated: { type: 'array', items: { type: 'string', pattern: ACTIVATION_ID } },
    }),
  }),
];

const ACTIVATION_DATA = {
  pack_id: PACK_ID,
  version: SEMVER,
  digest: DIGEST,
  target_kind: oneOf(['deployment', 'principal', 'grant']),
  target_id: nullable(anyId(['principal', 'grant'], 'null for the deployment')),
  mode: oneOf(['enforce', 'shadow']),
  sector_pack: nullable({
    type: 'string',
    pattern: `^ns:sector_pack:${NAME}@${VERSION}$`,
    description: 'the sector pack whose apply made it',
  }),
};

export const RULE_ACTIVATION_EVENTS = [
  defineEventType({
    event_type: 'ns.rule_activation.created',
    description:
      'a published pack version is activated for the deployment, a principal or a grant, in `enforce` or `shadow` ' +
      'mode (`POST /v1/rule-activations`, or `POST /v1/sector-packs/{name}/apply`)',
    subject_ref: { description: 'the activation, `ns:rule_activation:<uuid>`', pattern: ACTIVATION_ID },
    reason_codes: ['rule_activation_created', 'sector_pack_applied'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject(ACTIVATION_DATA),
  }),
  defineEventType({
    event_type: 'ns.rule_activation.deactivated',
    description:
      'an activation ends (`DELETE /v1/rule-activations/{id}`, or its pack version retired); it never comes back',
    subject_ref: { description: 'the activation, `ns:rule_activation:<uuid>`', pattern: ACTIVATION_ID },
    reason_codes: ['rule_activation_deleted', 'rule_pack_retired'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject({ pack_id: PACK_ID, version: SEMVER, digest: DIGEST }),
  }),
];

export const DICTIONARY_EVENTS = [
  defineEventType({
    event_type: 'ns.dictionary.drafted',
    description: 'an operator stores a draft dictionary version, or replaces that draft (`POST /v1/dictionaries`)',
    subject_ref: versioned('dictionary', 'the dictionary version'),
    reason_codes: ['dictionary_drafted'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      dictionary_id: DICTIONARY_ID,
      version: SEMVER,
      origin: ORIGIN,
      document_digest: DOCUMENT_DIGEST,
    }),
  }),
  defineEventType({
    event_type: 'ns.dictionary.published',
    description:
      'a dictionary version is published, signed by the service and immutable (`POST /v1/dictionaries/{name}/' +
      'versions/{version}/publish`); the shipped dictionaries seeded at start are data of the release and emit none',
    subject_ref: versioned('dictionary', 'the dictionary version'),
    reason_codes: ['dictionary_published'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      dictionary_id: DICTIONARY_ID,
      version: SEMVER,
      origin: ORIGIN,
      digest: DIGEST,
      document_digest: DOCUMENT_DIGEST,
    }),
  }),
];

export const SECTOR_PACK_EVENTS = [
  defineEventType({
    event_type: 'ns.sector_pack.applied',
    description:
      'a shipped sector pack is applied to a principal: every rule pack it names activated for that principal, in ' +
      'one transaction (`POST /v1/sector-packs/{name}/apply`)',
    subject_ref: versioned('sector_pack', 'the sector pack version'),
    reason_codes: ['sector_pack_applied'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      sector_pack_id: { type: 'string', pattern: `^ns:sector_pack:${NAME}$` },
      version: SEMVER,
      digest: DIGEST,
      mode: oneOf(['enforce', 'shadow']),
      activation_ids: { type: 'array', items: { type: 'string', pattern: ACTIVATION_ID } },
    }),
  }),
];

export const BACKTEST_EVENTS = [
  defineEventType({
    event_type: 'ns.backtest.completed',
    description:
      'a backtest of a pack version over stored decisions ends, done or failed (`POST /v1/rule-packs/{name}/' +
      'versions/{version}/backtests`)',
    subject_ref: { description: 'the backtest, `ns:backtest:<uuid>`', pattern: `^ns:backtest:${UUID}$` },
    reason_codes: ['backtest_done', 'backtest_failed'],
    principal_entity_id: 'never',
    actor_entity_id: 'sometimes',
    data_schema: closedObject(
      {
        pack_id: PACK_ID,
        version: SEMVER,
        state: oneOf(['done', 'failed']),
        params_digest: {
          ...DOCUMENT_DIGEST,
          description: 'SHA-256 of the stored params (RFC 8785 bytes: range, principal, who asked)',
        },
        decisions: { ...COUNT, description: 'stored decisions replayed' },
        total: { ...COUNT, description: 'stored decisions of the range when the backtest began' },
        changed: { ...COUNT, description: 'decisions whose outcome the pack would have changed' },
        result_digest: {
          ...DOCUMENT_DIGEST,
          description: 'SHA-256 of the stored result (RFC 8785 bytes): what the chain commits the report to; when done',
        },
        error_digest: {
          ...DOCUMENT_DIGEST,
          description: 'SHA-256 of the stored error text (UTF-8): when failed',
        },
      },
      ['result_digest', 'error_digest'],
    ),
  }),
];
