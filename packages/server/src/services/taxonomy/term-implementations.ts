/**
 * "Which rules and controls implement taxonomy term X" (docs/policy.md "Taxonomy"): one read over the latest shipped
 * `rule_taxonomy` dictionary (the tree, core rules/taxonomy.ts), every PUBLISHED rule pack version in the store
 * (shipped and operators' own; drafts decide nothing and retired versions no longer apply) and the compliance
 * mappings of the release (services/compliance/rule-pack-catalogue.ts, the controls projections evaluate).
 * A rule or control implements X when its `taxonomy` names X or a narrower term (unless `includeNarrower` is false).
 * INVARIANT: every stored document read is checked against its signature first (trustedDocument: an edited row is
 * 503 `audit_unavailable`, never an answer built on it). Read-only: no event, no audit entry.
 */
import {
  AarError,
  broaderTerms,
  matchingTerms,
  narrowerTerms,
  TAXONOMY_DICTIONARY,
  taxonomyTree,
  type DictionaryDocument,
  type RuleControl,
  type RulePackDocument,
  type TaxonomyTerm,
  type TaxonomyTree,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { rulePacks } from '../compliance/rule-pack-catalogue.ts';
import { trustedDocument } from '../policy/document-integrity.ts';
import { controlTermCode } from './control-term-code.ts';

export interface TaxonomyRef {
  dictionary_id: string;
  version: string;
  digest: string;
}

export interface ImplementingRule {
  pack_id: string;
  version: string;
  rule_id: string;
  title: string;
  effect: string;
  reason?: string;
  taxonomy: string[];
  /** the terms of `taxonomy` that make it implement the asked term */
  matched: string[];
}

export interface ImplementingControl {
  framework: string;
  pack_id: string;
  version: string;
  control_id: string;
  /** its term in the `compliance_control` dictionary: `<framework>:<control id slug>` */
  term_code: string;
  title: string;
  assessment: string;
  taxonomy: string[];
  matched: string[];
  implemented_by?: string[];
}

export interface TermImplementations {
  taxonomy: TaxonomyRef;
  term: TaxonomyTerm;
  broader: string[];
  narrower: string[];
  include_narrower: boolean;
  rules: ImplementingRule[];
  controls: ImplementingControl[];
}

export interface TaxonomyOverview {
  taxonomy: TaxonomyRef;
  terms: Array<TaxonomyTerm & { narrower: string[]; rules: number; controls: number }>;
}

interface Loaded {
  ref: TaxonomyRef;
  tree: TaxonomyTree;
  packs: RulePackDocument[];
  controls: Array<{ pack: { framework: string; pack_id: string; version: string }; control: RuleControl }>;
}

/** The answer for one term; 404 `not_found` when the taxonomy has no such term. */
export async function termImplementations(
  ctx: AppContext,
  code: string,
  includeNarrower = true,
): Promise<TermImplementations> {
  const loaded = await load(ctx);
  const term = loaded.tree.terms.get(code);
  if (!term) {
    throw new AarError(
      'not_found',
      `the taxonomy (${loaded.ref.dictionary_id}@${loaded.ref.version}) has no term \`${code}\``,
    );
  }
  const narrower = narrowerTerms(loaded.tree, code);
  const covered = new Set([code, ...(includeNarrower ? narrower : [])]);
  const { rules, controls } = implementationsOf(loaded, covered);
  return {
    taxonomy: loaded.ref,
    term,
    broader: broaderTerms(loaded.tree, code),
    narrower,
    include_narrower: includeNarrower,
    rules,
    controls,
  };
}

/** Every term with its direct narrower terms and how many rules and controls implement it (narrower included). */
export async function taxonomyOverview(ctx: AppContext): Promise<TaxonomyOverview> {
  const loaded = await load(ctx);
  const terms = [...loaded.tree.terms.values()].map((term) => {
    const { rules, controls } = implementationsOf(
      loaded,
      new Set([term.code, ...narrowerTerms(loaded.tree, term.code)]),
    );
    return {
      ...term,
      narrower: [...(loaded.tree.children.get(term.code) ?? [])],
      rules: rules.length,
      controls: controls.length,
    };
  });
  return { taxonomy: loaded.ref, terms };
}

function implementationsOf(
  loaded: Loaded,
  covered: ReadonlySet<string>,
): { rules: ImplementingRule[]; controls: ImplementingControl[] } {
  const rules: ImplementingRule[] = [];
  for (const pack of loaded.packs) {
    for (const rule of pack.rules) {
      const matched = matchingTerms(rule.taxonomy, covered);
      if (matched.length === 0) continue;
      rules.push({
        pack_id: pack.pack_id,
        version: pack.version,
        rule_id: rule.rule_id,
        title: rule.title,
        effect: rule.effect,
        ...(rule.reason ? { reason: rule.reason } : {}),
        taxonomy: [...(rule.taxonomy ?? [])],
        matched,
      });
    }
  }
  const controls: ImplementingControl[] = [];
  for (const { pack, control } of loaded.controls) {
    const matched = matchingTerms(control.taxonomy, covered);
    if (matched.length === 0) continue;
    controls.push({
      ...pack,
      control_id: control.control_id,
      term_code: controlTermCode(pack.framework, control.control_id),
      title: control.title,
      assessment: control.assessment,
      taxonomy: [...(control.taxonomy ?? [])],
      matched,
      ...(control.evidence.implemented_by ? { implemented_by: [...control.evidence.implemented_by] } : {}),
    });
  }
  return { rules, controls };
}

async function load(ctx: AppContext): Promise<Loaded> {
  const db = ctx.store.db;
  const [dictionaries, packRows] = await Promise.all([
    db
      .selectFrom('dictionaries')
      .select(['name', 'version', 'state', 'document', 'digest', 'seq'])
      .where('name', '=', TAXONOMY_DICTIONARY)
      .where('state', '=', 'published')
      .where('origin', '=', 'shipped')
      .orderBy('seq', 'desc')
      .limit(1)
      .execute(),
    db
      .selectFrom('rule_packs')
      .select(['name', 'version', 'state', 'document', 'digest'])
      .where('state', '=', 'published')
      .orderBy('seq')
      .execute(),
  ]);
  const row = dictionaries[0];
  if (!row) throw new AarError('not_found', `no published \`${TAXONOMY_DICTIONARY}\` dictionary on this deployment`);
  const doc = await trustedDocument<DictionaryDocument>(ctx, 'dictionary', row);
  const { tree, problems } = taxonomyTree(doc);
  if (!tree) throw new AarError('internal', `the stored taxonomy is malformed: ${problems.join('; ')}`);
  const packs: RulePackDocument[] = [];
  for (const r of packRows) packs.push(await trustedDocument<RulePackDocument>(ctx, 'rule_pack', r));
  const controls: Loaded['controls'] = [];
  for (const pack of rulePacks().values()) {
    const head = { framework: pack.framework, pack_id: pack.pack_id, version: pack.version };
    for (const control of pack.controls) controls.push({ pack: head, control });
  }
  // an operator's published generic pack may carry controls of its own framework too
  for (const pack of packs) {
    if (!Array.isArray(pack.controls) || typeof pack.framework !== 'string') continue;
    const head = { framework: pack.framework, pack_id: pack.pack_id, version: pack.version };
    for (const control of pack.controls as RuleControl[]) controls.push({ pack: head, control });
  }
  return {
    ref: { dictionary_id: doc.dictionary_id, version: doc.version, digest: row.digest! },
    tree,
    packs,
    controls,
  };
}
