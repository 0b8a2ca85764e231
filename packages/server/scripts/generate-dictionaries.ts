/**
 * Generates the `ns.dictionary.v1` documents that mirror a closed list of the service (CONTRACT section 19) from the
 * code that defines each list, into packages/server/policy/dictionaries/<name>.json:
 *
 *   node --conditions=aar-source --import tsx packages/server/scripts/generate-dictionaries.ts
 *
 * INVARIANT: the committed files equal what `generatedDictionaries()` gives (test/policy-content/dictionaries.test.ts),
 * so a code added to a list (a reason code, an event type, a currency) fails the tests until the dictionary is
 * regenerated, and a dictionary can never name a value the service does not have. Labels the code does not hold
 * (country and currency names, meanings) live in typed tables here: a `Record<Union, string>` cannot miss a member
 * of its union, and a code without a label throws instead of shipping an empty label.
 * The content dictionaries (mcc, mcc_family, jurisdiction_group, high_risk_jurisdiction, restricted_basket_category,
 * rule_taxonomy) are written by hand and cite their source; they are not generated. The generation refuses a
 * compliance control or a shipped rule pointing at a term rule_taxonomy does not have, or a malformed taxonomy tree.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  ALLOW_STOP_CONDITIONS,
  CONNECTOR_TYPES,
  CURRENCY_DIGITS,
  EVENT_CATALOGUE,
  JURISDICTIONS,
  REASON_CODES,
  RISK_LEVELS,
  SIDE_EFFECT_LEVELS,
  SIGNING_PROFILE_DEFINITIONS,
  type DictionaryDocument,
  type DictionaryTerm,
  type GrantState,
  type Obligation,
  type ReasonCode,
  type RiskLevel,
  type RulePack,
  type RulePackDocument,
  type SideEffectLevel,
  type StopCondition,
  taxonomyTree,
} from '@aar/core';
import { ROLES } from '../src/http/api-tokens.ts';
import { readRulePackFolder } from '../src/services/compliance/rule-pack-catalogue.ts';
import { listCapabilities } from '../src/services/references/capability-catalogue.ts';
import { controlTermCode } from '../src/services/taxonomy/control-term-code.ts';
import type { Role } from '../src/store/schema.ts';
import { COUNTRY_NAMES } from './dictionary-labels/country-names.ts';
import { CURRENCY_NAMES } from './dictionary-labels/currency-names.ts';

export { controlTermCode };

export const DICTIONARY_FOLDER = new URL('../policy/dictionaries/', import.meta.url);
export const RULE_PACK_FOLDER = new URL('../policy/rule-packs/', import.meta.url);
const VERSION = '1.0.0';

const REASON_MEANINGS: Record<ReasonCode, string> = {
  payload_signature_missing: 'The caller must sign the request (RFC 9421) and did not.',
  payload_signature_invalid: "The request's signature does not verify against the actor's registered key.",
  payload_stale: "The signature's `created` time is outside the allowed window.",
  payload_replayed: "The signature's nonce was already used within the window.",
  principal_inactive: 'The principal is suspended or erased.',
  actor_inactive: 'The agent (actor) is suspended or erased.',
  agent_metadata_mismatch:
    'The agent metadata (model, software version, operator) the request presents is not the one the agent attested.',
  instrument_inactive: 'The card token is suspended.',
  instrument_not_bound: 'The card token does not belong to the principal.',
  authority_not_found: 'No grant gives this actor authority for this principal and instrument.',
  capability_not_granted: "The grants found do not convey the requested action's capability.",
  authority_revoked: 'A grant of the chain is revoked or suspended, or an intermediary is inactive.',
  authority_expired: 'A grant of the chain is past its `valid_until`.',
  delegation_invalid: 'The delegation chain is broken: a link does not verify or widens its parent.',
  merchant_unknown: 'The merchant is not registered, or suspended.',
  merchant_category_blocked: "The merchant's category is blocked by the grant.",
  merchant_category_not_allowed: "The merchant's category is not among the grant's allowed categories.",
  jurisdiction_not_allowed: "The merchant's jurisdiction is not among the grant's allowed jurisdictions.",
  currency_mismatch: "The request's currency differs from the grant's limits (the service never converts).",
  amount_above_agent_threshold: 'The amount exceeds the grant\u2019s `max_amount_per_purchase`.',
  daily_limit_exceeded: "The amount would take today's spend past the grant's `max_daily_amount`.",
  mandate_revoked: 'The grant of the chain made from a mandate or allowance is revoked (the mandate was revoked).',
  mandate_expired: 'The grant of the chain made from a mandate or allowance is past its `valid_until`.',
  allowance_used: 'A single-use mandate or allowance of the chain already allowed its purchase.',
  merchant_not_allowed: "The merchant is not in a grant's `allowed_merchants`.",
  budget_exceeded: "The amount would take the period's spend past a grant's `budget` (or `budget_spent` is missing).",
  risk_state_blocked: 'The actor, principal or instrument is blocked by the risk engine.',
  risk_state_elevated: 'The actor, principal or instrument is at elevated risk: the principal decides.',
  amount_above_approval_threshold: "The amount exceeds the grant's `requires_approval_above`: the principal decides.",
  approval_pending: 'The approval this retry names has not been answered yet.',
  approval_rejected: 'The principal rejected the approval.',
  approval_expired: 'The approval expired before it was answered.',
  approval_mismatch: 'The retry differs from what was approved (amount, merchant, instrument or basket).',
  approved_by_principal: 'Allowed: the principal approved this exact purchase.',
  scope_within_attenuated_authority: 'Allowed: the request is within every grant of the chain.',
};

/** The built-in obligations decide adds (core decide/types.ts `Obligation`). */
const BUILT_IN_OBLIGATIONS: Record<Obligation['type'], string> = {
  'audit.emit': 'The decision is recorded in the audit chain and its events are emitted (every decision).',
  basket_hash_binding: 'The purchase must carry exactly the basket whose hash the decision binds (`basket_hash`).',
};

/** Obligation types the shipped rule packs add; a pack naming a type missing here fails the generation. */
const RULE_OBLIGATIONS: Readonly<Record<string, string>> = {
  'sca.required': 'Strong customer authentication is required for this payment (PSD2 Art. 97, PSR proposal Art. 85).',
  'notify.principal': 'Whoever executes the purchase tells the principal what was bought, where, for how much.',
  'age.verification': "The merchant verifies the buyer's age at delivery (`basket_category` names the item category).",
};

const BUILT_IN_STOP_CONDITIONS: Record<StopCondition, string> = {
  'actor.stop_signal': 'The allowance ends when the agent is told to stop.',
  'delegation.revoked': 'The allowance ends when a grant of the chain is revoked.',
  'scope.attenuated': "The allowance ends when a grant's scope is narrowed below the request.",
};

/** Stop conditions the shipped rule packs add (none in 1.0.0); a pack naming one missing here fails the generation. */
const RULE_STOP_CONDITIONS: Readonly<Record<string, string>> = {};

const ROLE_MEANINGS: Record<Role, string> = {
  admin: 'Operates the deployment: entities, grants, keys, tokens, webhooks, policy content.',
  runtime: 'The agent platform or gateway: asks authorize for decisions and reports outcomes.',
  principal: "The principal's banking app: answers approvals, reads the principal's own records.",
  auditor: 'Reads records, evidence packs and the audit chain; builds compliance projections.',
  pep: 'A policy enforcement point (an API gateway): asks the AuthZEN endpoints for decisions and nothing else.',
};

const GRANT_STATES: Record<GrantState, string> = {
  active: 'The grant conveys authority.',
  suspended: 'The grant conveys no authority until it is resumed.',
  revoked: 'The grant, and every grant below it, conveys no authority again.',
};

const RISK_LEVEL_LABELS: Record<RiskLevel, string> = {
  low: 'Low risk',
  medium: 'Medium risk',
  high: 'High risk',
  critical: 'Critical risk',
};

const SIDE_EFFECT_LABELS: Record<SideEffectLevel, string> = {
  read_only: 'Reads only',
  notify: 'Sends notifications',
  write_external: 'Writes to external systems',
  state_change: 'Changes state in the service',
  move_money: 'Moves money',
};

function humanize(code: string): string {
  const words = code.replace(/[._]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function dictionary(name: string, title: string, source: string, terms: DictionaryTerm[]): DictionaryDocument {
  const seen = new Set<string>();
  for (const term of terms) {
    if (seen.has(term.code)) throw new Error(`dictionary ${name}: term \`${term.code}\` appears twice`);
    if (!term.label) throw new Error(`dictionary ${name}: term \`${term.code}\` has no label`);
    seen.add(term.code);
  }
  return {
    schema_version: 'ns.dictionary.v1',
    dictionary_id: `ns:dictionary:${name}`,
    version: VERSION,
    title,
    source,
    terms,
  };
}

function labelled(table: Readonly<Record<string, string>>, code: string, list: string): string {
  const label = table[code];
  if (label === undefined) throw new Error(`${list}: no label for \`${code}\` (add it to the labels table)`);
  return label;
}

/** The shipped purchase packs (packages/server/policy/rule-packs), for the obligations and stop conditions they add. */
export function shippedRulePacks(folder: URL = RULE_PACK_FOLDER): RulePackDocument[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, folder), 'utf8')) as RulePackDocument);
}

function ruleAdded<T>(packs: RulePackDocument[], pick: (rule: RulePackDocument['rules'][number]) => T[]): Set<T> {
  return new Set(packs.flatMap((p) => p.rules.flatMap(pick)));
}

/** The hand-written taxonomy (policy/dictionaries/rule_taxonomy.json): its term codes, the tree checked. */
export function taxonomyCodes(folder: URL = DICTIONARY_FOLDER): Set<string> {
  const doc = JSON.parse(readFileSync(new URL('rule_taxonomy.json', folder), 'utf8')) as DictionaryDocument;
  const { problems } = taxonomyTree(doc);
  if (problems.length > 0) throw new Error(`dictionary rule_taxonomy: ${problems.join('; ')}`);
  return new Set(doc.terms.map((t) => t.code));
}

/** Throws naming the first rule or control that points at a term the taxonomy does not have. */
function checkTaxonomyTerms(packs: RulePackDocument[], compliance: RulePack[], known: Set<string>): void {
  const unknown = (terms: readonly string[] | undefined) => (terms ?? []).find((t) => !known.has(t));
  for (const pack of packs) {
    for (const rule of pack.rules) {
      const term = unknown(rule.taxonomy);
      if (term) throw new Error(`${pack.pack_id} rule ${rule.rule_id}: unknown taxonomy term \`${term}\``);
    }
  }
  for (const pack of compliance) {
    for (const control of pack.controls) {
      const term = unknown(control.taxonomy);
      if (term) throw new Error(`${pack.framework} control ${control.control_id}: unknown taxonomy term \`${term}\``);
    }
  }
}

/** Every generated dictionary, in name order. Pure apart from reading the shipped pack files. */
export function generatedDictionaries(packs: RulePackDocument[] = shippedRulePacks()): DictionaryDocument[] {
  const aar = (where: string) => `aar: generated from ${where} by packages/server/scripts/generate-dictionaries.ts`;
  const obligations = [...ruleAdded(packs, (r) => (r.obligations ?? []).map((o) => o.type))].sort();
  const stops = [...ruleAdded(packs, (r) => r.stop_conditions ?? [])].sort();
  const compliance = [...readRulePackFolder().values()];
  checkTaxonomyTerms(packs, compliance, taxonomyCodes());
  const docs: DictionaryDocument[] = [
    dictionary(
      'capability',
      'Capabilities a grant may name',
      aar('the grantable capabilities (server services/grants/purchase-actions.ts)'),
      listCapabilities().map((c) => ({
        code: c.capability_id,
        label: c.description,
        family: c.family,
        actions: c.actions,
        moves_money: c.moves_money,
      })),
    ),
    dictionary(
      'compliance_control',
      'Compliance controls',
      aar('the compliance mappings (packages/server/rule-packs), term code `<framework>:<control id slug>`'),
      compliance.flatMap((pack) =>
        pack.controls.map((c) => ({
          code: controlTermCode(pack.framework, c.control_id),
          label: c.title,
          framework: pack.framework,
          control_id: c.control_id,
          assessment: c.assessment,
          ...(c.taxonomy ? { taxonomy: c.taxonomy } : {}),
          ...(c.evidence.implemented_by ? { implemented_by: c.evidence.implemented_by } : {}),
        })),
      ),
    ),
    dictionary(
      'compliance_framework',
      'Compliance frameworks',
      aar('the compliance mappings (packages/server/rule-packs)'),
      compliance.map((pack) => ({
        code: pack.framework,
        label: pack.title,
        pack_id: pack.pack_id,
        version: pack.version,
        status: pack.source.status,
        publisher: pack.source.publisher,
      })),
    ),
    dictionary(
      'connector_type',
      'Connector types',
      aar('core connectors CONNECTOR_TYPES'),
      Object.entries(CONNECTOR_TYPES).map(([code, family]) => ({ code, label: humanize(code), family })),
    ),
    dictionary(
      'country',
      'Countries (ISO 3166-1 alpha-2)',
      aar(
        'core geo JURISDICTIONS (the 249 officially assigned ISO 3166-1 alpha-2 codes), English short names of the ISO 3166 Maintenance Agency',
      ),
      [...JURISDICTIONS].sort().map((code) => ({ code, label: labelled(COUNTRY_NAMES, code, 'country') })),
    ),
    dictionary(
      'currency',
      'Currencies (ISO 4217)',
      aar('core money CURRENCY_DIGITS (ISO 4217 list one, codes with a minor unit), names of ISO 4217 list one'),
      Object.keys(CURRENCY_DIGITS)
        .sort()
        .map((code) => ({
          code,
          label: labelled(CURRENCY_NAMES, code, 'currency'),
          minor_units: CURRENCY_DIGITS[code]!,
        })),
    ),
    dictionary(
      'event_type',
      'Event types',
      aar('core events EVENT_CATALOGUE'),
      EVENT_CATALOGUE.map((d) => ({ code: d.event_type, label: d.description, family: d.family })),
    ),
    dictionary(
      'grant_state',
      'Grant states',
      aar('core decide GrantState'),
      Object.entries(GRANT_STATES).map(([code, label]) => ({ code, label })),
    ),
    dictionary(
      'obligation_type',
      'Obligation types',
      aar('core decide Obligation (built in) and the obligations of the shipped rule packs'),
      [
        ...Object.entries(BUILT_IN_OBLIGATIONS).map(([code, label]) => ({ code, label, built_in: true })),
        ...obligations.map((code) => ({
          code,
          label: labelled(RULE_OBLIGATIONS, code, 'obligation_type'),
          built_in: false,
        })),
      ],
    ),
    dictionary(
      'reason_code',
      'Decision reason codes',
      aar(
        'core decide REASON_CODES (CONTRACT section 3); rule reasons are `<pack name>.<code>`, declared by each pack',
      ),
      (Object.keys(REASON_CODES) as ReasonCode[]).map((code) => ({
        code,
        label: humanize(code),
        decision: REASON_CODES[code].decision,
        check: REASON_CODES[code].check,
        meaning: REASON_MEANINGS[code],
      })),
    ),
    dictionary(
      'risk_level',
      'Connector risk levels',
      aar('core connectors RISK_LEVELS'),
      RISK_LEVELS.map((code) => ({ code, label: RISK_LEVEL_LABELS[code] })),
    ),
    dictionary(
      'role',
      'API token roles',
      aar('server http/api-tokens.ts ROLES'),
      ROLES.map((code) => ({ code, label: humanize(code), meaning: ROLE_MEANINGS[code] })),
    ),
    dictionary(
      'side_effect_level',
      'Connector side-effect levels',
      aar('core connectors SIDE_EFFECT_LEVELS (in increasing order)'),
      SIDE_EFFECT_LEVELS.map((code, rank) => ({ code, label: SIDE_EFFECT_LABELS[code], rank })),
    ),
    dictionary(
      'signing_profile',
      'Webhook signing profiles',
      aar('core connectors SIGNING_PROFILE_DEFINITIONS'),
      SIGNING_PROFILE_DEFINITIONS.map((p) => ({ code: p.profile, label: p.title, description: p.description })),
    ),
    dictionary(
      'stop_condition',
      'Stop conditions',
      aar('core decide ALLOW_STOP_CONDITIONS (built in) and the stop conditions of the shipped rule packs'),
      [
        ...ALLOW_STOP_CONDITIONS.map((code) => ({ code, label: BUILT_IN_STOP_CONDITIONS[code], built_in: true })),
        ...stops.map((code) => ({
          code,
          label: labelled(RULE_STOP_CONDITIONS, code, 'stop_condition'),
          built_in: false,
        })),
      ],
    ),
  ];
  return docs;
}

/** The file text of one dictionary, as committed. */
export function dictionaryText(doc: DictionaryDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const doc of generatedDictionaries()) {
    const name = doc.dictionary_id.slice('ns:dictionary:'.length);
    writeFileSync(new URL(`${name}.json`, DICTIONARY_FOLDER), dictionaryText(doc));
    console.log(`policy/dictionaries/${name}.json: ${doc.terms.length} terms`);
  }
}
