/**
 * The cross-rule-pack taxonomy (`rule_taxonomy`, an `ns.dictionary.v1`): terms that say what a rule or a compliance
 * control is about (`spend_limits`, `velocity`, `human_oversight`, ...), arranged as a forest by each term's optional
 * `parent` attribute (`spend_cap` under `spend_limits`, `step_up` under `human_oversight`). A rule or control
 * "implements" a term when it points at the term or at one of its narrower terms (docs/policy.md "Taxonomy").
 * Pure: reads a dictionary document, never a store.
 * INVARIANT: the tree is well formed or nothing is built: every `parent` is a term of the same dictionary and no
 * term is its own ancestor (a cycle would make "narrower than" loop). Attacker assumption: an operator may publish
 * any dictionary; only the shipped one is read as the taxonomy, and a malformed one is refused here, not walked.
 */
import type { DictionaryDocument, DictionaryTerm } from './types.ts';

export const TAXONOMY_DICTIONARY = 'rule_taxonomy';

export interface TaxonomyTerm {
  code: string;
  label: string;
  /** what the term covers, in words */
  meaning?: string;
  /** the broader term, when the term is not a root */
  parent?: string;
}

export interface TaxonomyTree {
  terms: ReadonlyMap<string, TaxonomyTerm>;
  /** codes of the direct children of each term, in dictionary order */
  children: ReadonlyMap<string, readonly string[]>;
}

/** Builds the tree, or returns the problems (`/terms/<i>/parent`) that prevent it. */
export function taxonomyTree(doc: Pick<DictionaryDocument, 'terms'>): { tree?: TaxonomyTree; problems: string[] } {
  const terms = new Map<string, TaxonomyTerm>();
  const problems: string[] = [];
  for (const t of doc.terms) terms.set(t.code, termOf(t));
  const children = new Map<string, string[]>([...terms.keys()].map((code) => [code, []]));
  doc.terms.forEach((t, i) => {
    const parent = t.parent;
    if (parent === undefined) return;
    if (typeof parent !== 'string' || !terms.has(parent)) {
      problems.push(`/terms/${i}/parent: ${JSON.stringify(parent)} is not a term of the taxonomy`);
      return;
    }
    children.get(parent)!.push(t.code);
  });
  doc.terms.forEach((t, i) => {
    // walk up at most |terms| steps: a longer walk can only be a cycle
    let at: string | undefined = t.code;
    for (let steps = 0; at !== undefined; steps++) {
      if (steps > terms.size) {
        problems.push(`/terms/${i}/parent: term ${t.code} is its own ancestor`);
        break;
      }
      at = terms.get(at)?.parent;
    }
  });
  return problems.length > 0 ? { problems } : { tree: { terms, children }, problems };
}

function termOf(t: DictionaryTerm): TaxonomyTerm {
  return {
    code: t.code,
    label: t.label,
    ...(typeof t.meaning === 'string' ? { meaning: t.meaning } : {}),
    ...(typeof t.parent === 'string' ? { parent: t.parent } : {}),
  };
}

/** The broader terms of `code`, nearest first (empty for a root or an unknown code). */
export function broaderTerms(tree: TaxonomyTree, code: string): string[] {
  const out: string[] = [];
  for (let at = tree.terms.get(code)?.parent; at !== undefined; at = tree.terms.get(at)?.parent) out.push(at);
  return out;
}

/** Every narrower term of `code` (children, their children, ...), depth first in dictionary order. */
export function narrowerTerms(tree: TaxonomyTree, code: string): string[] {
  const out: string[] = [];
  const visit = (c: string) => {
    for (const child of tree.children.get(c) ?? []) {
      out.push(child);
      visit(child);
    }
  };
  visit(code);
  return out;
}

/**
 * Which of `pointedAt` (a rule's or control's `taxonomy`) implement `covered` (a term and, usually, its narrower
 * terms): the matching codes in the holder's order; empty when it does not implement the term.
 */
export function matchingTerms(pointedAt: readonly string[] | undefined, covered: ReadonlySet<string>): string[] {
  return (pointedAt ?? []).filter((code) => covered.has(code));
}
