/**
 * Structure of an `ns.rule_pack.v1` document (CONTRACT section 19, DESIGN-27 section 3), every rule through the
 * profile, every reason declared by the pack, namespaced `<pack name>.<code>` and never a built-in reason code, every
 * effect one the domain allows (a purchase rule only narrows: `permit` is refused there), the document at most
 * 256 KiB. Returns every problem with an RFC 6901 pointer into the document; empty means valid. Never throws.
 *
 * What exists elsewhere (a dictionary the pack declares, an obligation type, a stop condition, a taxonomy term) is
 * checked only when the caller passes what it knows in `known` (the server passes its published dictionaries).
 */
import { isReasonCode } from '../decide/reason-codes.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { Problems, isRecord } from './document-checks.ts';
import { DICTIONARY_PREFIX, REASON_CODE_PART, RULE_PACK_PREFIX, parseReference } from './names.ts';
import { MAX_PACK_BYTES, checkRuleProfile, type RuleProblem } from './profile.ts';
import { RULE_PACK_SCHEMA, type PackDomain } from './types.ts';

/** What the caller knows exists; an absent member is not checked. */
export interface KnownPolicyTerms {
  /** `ns:dictionary:<name>@<version>` of every published dictionary */
  dictionaries?: ReadonlySet<string>;
  /** `obligation_type` dictionary codes */
  obligationTypes?: ReadonlySet<string>;
  /** `stop_condition` dictionary codes */
  stopConditions?: ReadonlySet<string>;
  /** `rule_taxonomy` dictionary codes */
  taxonomy?: ReadonlySet<string>;
  /** `<pack_id>@<version>` of every existing rule pack (sector packs) */
  rulePacks?: ReadonlySet<string>;
}

const MEMBERS: ReadonlySet<string> = new Set([
  'schema_version',
  'pack_id',
  'version',
  'domain',
  'title',
  'description',
  'dictionaries',
  'reasons',
  'rules',
  'tests',
  // compliance mappings (CONTRACT section 13) are rule packs of the generic domain with these members
  // (and `rule_pack_id`, the deprecated `ns:rule_pack:<framework>:<version>` alias compliance clients read)
  'framework',
  'controls',
  'source',
  'scope_note',
  'rule_pack_id',
  'signature',
]);
const RULE_MEMBERS: ReadonlySet<string> = new Set([
  'rule_id',
  'title',
  'description',
  'taxonomy',
  'when',
  'effect',
  'reason',
  'obligations',
  'stop_conditions',
]);
const EFFECTS: Record<PackDomain, readonly string[]> = {
  purchase: ['deny', 'require_approval', 'obligate'],
  generic: ['permit', 'deny'],
};
/** The effects that decide, and so must name a declared reason. */
const REASONED: ReadonlySet<string> = new Set(['deny', 'require_approval']);
export const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export function validateRulePack(input: unknown, known: KnownPolicyTerms = {}): RuleProblem[] {
  const p = new Problems();
  const { doc: pack, name } = p.documentHead(input, {
    what: 'a rule pack',
    maxBytes: MAX_PACK_BYTES,
    members: MEMBERS,
    schema: RULE_PACK_SCHEMA,
    idMember: 'pack_id',
    prefix: RULE_PACK_PREFIX,
  });
  if (!pack) return p.list;
  const doc = pack;
  const domain = doc.domain === 'purchase' || doc.domain === 'generic' ? doc.domain : undefined;
  if (domain === undefined) p.add('/domain', 'domain must be "purchase" or "generic"');
  p.text(doc, 'title', '');
  p.text(doc, 'description', '');
  checkDictionaryRefs(p, doc, '', known);
  const declared = checkReasons(p, doc, domain);
  checkRules(p, doc, { name, domain, declared, known });
  checkTests(p, doc, domain);
  if (doc.framework !== undefined && typeof doc.framework !== 'string' && !isRecord(doc.framework)) {
    p.add('/framework', 'framework must be a string or an object');
  }
  if (doc.controls !== undefined && !Array.isArray(doc.controls)) p.add('/controls', 'controls must be an array');
  else if (Array.isArray(doc.controls)) checkControlTaxonomy(p, doc.controls, known);
  if (doc.signature !== undefined && !isRecord(doc.signature)) p.add('/signature', 'signature must be an object');
  return p.list;
}

/** `dictionaries`: unique `ns:dictionary:<name>@<version>`, one version per name, known when the caller says. */
export function checkDictionaryRefs(
  p: Problems,
  doc: Record<string, unknown>,
  pointer: string,
  known: KnownPolicyTerms,
): void {
  const refs = p.array(doc, 'dictionaries', pointer);
  if (!refs) return;
  const at = appendPointer(pointer, 'dictionaries');
  const names = new Set<string>();
  refs.forEach((ref, i) => {
    const parsed = parseReference(ref, DICTIONARY_PREFIX);
    const here = appendPointer(at, i);
    if (!parsed) return p.add(here, 'must be "ns:dictionary:<name>@<version>"');
    if (names.has(parsed.name)) return p.add(here, `dictionary ${parsed.name} is listed twice`);
    names.add(parsed.name);
    if (known.dictionaries && !known.dictionaries.has(ref as string)) p.add(here, `unknown dictionary ${String(ref)}`);
  });
}

function checkReasons(p: Problems, doc: Record<string, unknown>, domain: PackDomain | undefined): Map<string, string> {
  const declared = new Map<string, string>();
  const reasons = p.array(doc, 'reasons', '', true);
  if (!reasons) return declared;
  const allowed = domain === 'generic' ? ['deny'] : ['deny', 'require_approval'];
  reasons.forEach((reason, i) => {
    const at = `/reasons/${i}`;
    if (!isRecord(reason)) return p.add(at, 'a reason must be an object { code, decision, description }');
    p.onlyMembers(reason, new Set(['code', 'decision', 'description']), at);
    const code = p.text(reason, 'code', at, REASON_CODE_PART, 'a code matching ^[a-z][a-z0-9_]{0,62}$');
    p.text(reason, 'description', at);
    if (!allowed.includes(reason.decision as string)) {
      p.add(`${at}/decision`, `decision must be one of ${allowed.join(', ')}`);
    }
    if (code === undefined) return;
    if (isReasonCode(code)) p.add(`${at}/code`, `${code} is a built-in reason code: a pack declares its own`);
    else if (declared.has(code)) p.add(`${at}/code`, `reason ${code} is declared twice`);
    else declared.set(code, reason.decision as string);
  });
  return declared;
}

interface RuleScope {
  name: string | undefined;
  domain: PackDomain | undefined;
  declared: Map<string, string>;
  known: KnownPolicyTerms;
}

function checkRules(p: Problems, doc: Record<string, unknown>, scope: RuleScope): void {
  const rules = p.array(doc, 'rules', '');
  if (!rules) return;
  const ids = new Set<string>();
  rules.forEach((rule, i) => {
    const at = `/rules/${i}`;
    if (!isRecord(rule)) return p.add(at, 'a rule must be an object');
    p.onlyMembers(rule, RULE_MEMBERS, at);
    const id = p.text(rule, 'rule_id', at, RULE_ID, 'an id matching ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$');
    if (id !== undefined) {
      if (ids.has(id)) p.add(`${at}/rule_id`, `rule_id ${id} is used twice`);
      ids.add(id);
    }
    p.text(rule, 'title', at);
    p.text(rule, 'description', at);
    if (!('when' in rule)) p.add(`${at}/when`, 'when is required');
    else p.list.push(...checkRuleProfile(rule.when, `${at}/when`));
    checkEffect(p, rule, at, scope);
    checkTaxonomy(p, rule, at, scope.known);
  });
}

/** `taxonomy` of a rule or a control: unique non-empty strings, each a known `rule_taxonomy` term when known. */
function checkTaxonomy(p: Problems, holder: Record<string, unknown>, at: string, known: KnownPolicyTerms): void {
  if (holder.taxonomy === undefined) return;
  const terms = p.array(holder, 'taxonomy', at) ?? [];
  p.uniqueStrings(terms, `${at}/taxonomy`, (s) => s.length > 0, 'a rule_taxonomy term code').forEach((term, j) => {
    if (known.taxonomy && !known.taxonomy.has(term)) p.add(`${at}/taxonomy/${j}`, `unknown taxonomy term ${term}`);
  });
}

/**
 * A compliance mapping's controls point at taxonomy terms too (`controls[].taxonomy`); the rest of a control's shape
 * is the JSON Schema's (ns.rule_pack.v1 `$defs/control`) and the compliance catalogue's.
 */
function checkControlTaxonomy(p: Problems, controls: unknown[], known: KnownPolicyTerms): void {
  controls.forEach((control, i) => {
    if (isRecord(control)) checkTaxonomy(p, control, `/controls/${i}`, known);
  });
}

function checkEffect(p: Problems, rule: Record<string, unknown>, at: string, scope: RuleScope): void {
  const effect = rule.effect;
  const allowed = scope.domain === undefined ? [] : EFFECTS[scope.domain];
  if (typeof effect !== 'string' || (scope.domain !== undefined && !allowed.includes(effect))) {
    const why =
      scope.domain === 'purchase' && effect === 'permit' ? ': a purchase rule only narrows, it never permits' : '';
    p.add(`${at}/effect`, `effect must be one of ${allowed.join(', ') || "the domain's effects"}${why}`);
  }
  if (typeof effect === 'string' && REASONED.has(effect)) {
    checkReason(p, rule.reason, `${at}/reason`, effect, scope);
  } else if (rule.reason !== undefined) {
    p.add(`${at}/reason`, `a ${String(effect)} rule decides nothing and names no reason`);
  }
  const obligations = p.array(rule, 'obligations', at, true);
  const stops = p.array(rule, 'stop_conditions', at, true);
  if ((obligations || stops) && scope.domain === 'generic') {
    p.add(
      `${at}/${obligations ? 'obligations' : 'stop_conditions'}`,
      'generic rules carry no obligations or stop conditions',
    );
  }
  obligations?.forEach((obligation, j) => {
    const here = `${at}/obligations/${j}`;
    if (!isRecord(obligation) || typeof obligation.type !== 'string' || obligation.type.length === 0) {
      return p.add(here, 'an obligation must be an object with a string type');
    }
    if (scope.known.obligationTypes && !scope.known.obligationTypes.has(obligation.type)) {
      p.add(`${here}/type`, `unknown obligation type ${obligation.type}`);
    }
  });
  p.uniqueStrings(stops ?? [], `${at}/stop_conditions`, (s) => s.length > 0, 'a stop condition').forEach((stop, j) => {
    if (scope.known.stopConditions && !scope.known.stopConditions.has(stop)) {
      p.add(`${at}/stop_conditions/${j}`, `unknown stop condition ${stop}`);
    }
  });
  if (effect === 'obligate' && !obligations?.length && !stops?.length) {
    p.add(`${at}/obligations`, 'an obligate rule adds at least one obligation or stop condition');
  }
}

function checkReason(p: Problems, reason: unknown, at: string, effect: string, scope: RuleScope): void {
  if (typeof reason !== 'string') return p.add(at, `a ${effect} rule names its reason "<pack name>.<code>"`);
  const dot = reason.indexOf('.');
  const prefix = dot < 0 ? '' : reason.slice(0, dot);
  const code = dot < 0 ? reason : reason.slice(dot + 1);
  if (isReasonCode(reason)) return p.add(at, `${reason} is a built-in reason code: a rule names its pack's own`);
  if (scope.name === undefined) return;
  if (prefix !== scope.name) return p.add(at, `reason must be "${scope.name}.<code>" (namespaced by the pack name)`);
  const decision = scope.declared.get(code);
  if (decision === undefined) return p.add(at, `reason ${reason} is not declared in reasons`);
  if (decision !== effect) p.add(at, `reason ${reason} is declared for ${decision}, the rule's effect is ${effect}`);
}

function checkTests(p: Problems, doc: Record<string, unknown>, domain: PackDomain | undefined): void {
  const tests = p.array(doc, 'tests', '');
  if (!tests) return;
  const rules = Array.isArray(doc.rules) ? doc.rules : [];
  if (rules.length > 0 && tests.length === 0) p.add('/tests', 'a pack with rules carries at least one test');
  const names = new Set<string>();
  const effects = domain === undefined ? [] : [...EFFECTS[domain], 'none'];
  tests.forEach((test, i) => {
    const at = `/tests/${i}`;
    if (!isRecord(test)) return p.add(at, 'a test must be an object { name, context, expect }');
    p.onlyMembers(test, new Set(['name', 'context', 'expect']), at);
    const name = p.text(test, 'name', at);
    if (name !== undefined) {
      if (names.has(name)) p.add(`${at}/name`, `test ${name} is named twice`);
      names.add(name);
    }
    if (!isRecord(test.context)) p.add(`${at}/context`, 'context must be an object { request, facts }');
    const expect = test.expect;
    if (!isRecord(expect)) return p.add(`${at}/expect`, 'expect must be an object { effect, reason? }');
    p.onlyMembers(expect, new Set(['effect', 'reason']), `${at}/expect`);
    if (domain !== undefined && !effects.includes(expect.effect as string)) {
      p.add(`${at}/expect/effect`, `effect must be one of ${effects.join(', ')}`);
    }
    if (expect.reason !== undefined && typeof expect.reason !== 'string') {
      p.add(`${at}/expect/reason`, 'reason must be a string');
    }
  });
}
