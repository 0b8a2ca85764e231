/**
 * A compliance mapping (CONTRACT section 13): an `ns.rule_pack.v1` of the `generic` domain without rules (the same
 * document format as policy packs, CONTRACT section 19) carrying one framework's controls, each saying what in an
 * evidence pack (`ns.evidence_pack.v1`) shows it and, where a shipped policy rule implements it, which rules. Rule packs are versioned DATA (JSON files shipped with the server, schema
 * `ns.rule_pack.v1`), never code branches: a new framework or a corrected mapping is a new file, not a release of
 * the projection logic. A stored format: change it additively only.
 */

import type { RULE_PACK_SCHEMA } from '../rules/types.ts';

// one schema id for compliance mappings and policy rule packs (CONTRACT sections 13 and 19)

/**
 * An RFC 6901 JSON pointer into an evidence pack, in which a whole reference token `{*}` stands for every member of
 * the array (its indices) or object (its names) found there. `/snapshot/grants/{*}/signature_valid` names the flag
 * of every link of the chain.
 */
export type PointerTemplate = string;

/** A test of the JSON value a pointer resolves to. A closed set: an unknown `op` is refused, never ignored. */
export type Predicate =
  /** the pointer resolves and its value is not null */
  | { op: 'present' }
  /** deep JSON equality */
  | { op: 'equals'; value: unknown }
  /** deep JSON equality with one of `values` */
  | { op: 'in'; values: unknown[] }
  /** an object holding at least these members (each deep-equal) */
  | { op: 'contains'; members: Record<string, unknown> }
  /** a non-empty string, array or object */
  | { op: 'non_empty' }
  /** deep JSON equality with the value another pointer (no template) of the same pack resolves to */
  | { op: 'equals_pointer'; pointer: string }
  /** no 12-19 digit Luhn-valid number anywhere in the value (core/pan) */
  | { op: 'no_card_number' };

export interface EvidenceRequirement {
  pointer: PointerTemplate;
  /** `all` (default): every expansion must pass; `any`: at least one. No expansion at all never passes. */
  match?: 'all' | 'any';
  predicate: Predicate;
  /** what the value shows for this control: copied into the projection beside each pointer */
  note: string;
}

export type ControlAssessment =
  /** decided from the packs, by `requirements` */
  | 'evidence'
  /** the runtime cannot show this control, whatever the packs hold: always `gap`, with `reason` */
  | 'gap'
  /** the control does not concern an authorization runtime: always `not_applicable`, with `reason` */
  | 'not_applicable';

export interface RuleControl {
  /** as the source writes it: `CC6.1`, `A.8.15`, `Art. 12(1)`, `GOVERN 1.1` */
  control_id: string;
  /** a short summary of the control; the normative text is the source's */
  title: string;
  assessment: ControlAssessment;
  evidence: {
    /** what in a pack satisfies the control, in words */
    description: string;
    /**
     * the shipped policy rules that implement the control (`<pack_id>@<version>#<rule_id>`, e.g.
     * `ns:rule_pack:psd2_sca@1.0.0#cumulative_limit`); documentation for auditors, never read by the projection
     */
    implemented_by?: string[];
    /** every one must hold for a pack to satisfy the control (assessment `evidence` only) */
    requirements: EvidenceRequirement[];
    /** the packs the control concerns (all must hold); absent: every pack */
    applies_when?: EvidenceRequirement[];
  };
  /**
   * `full` (default): packs that hold the evidence satisfy the control. `partial`: the control asks more than any
   * pack can show (an organisational process, a setting outside the packs): at best `partially_satisfied`.
   */
  coverage?: 'full' | 'partial';
  /**
   * `rule_taxonomy` term codes the control is about (`human_oversight`, `sca`, ...): what relates it to the rules
   * of every pack that point at the same terms (docs/policy.md "Taxonomy"); never read by the projection
   */
  taxonomy?: string[];
  /** why: required for `gap`, `not_applicable` and `coverage: partial` */
  reason?: string;
  /** when no pack of the selection is one the control concerns */
  not_applicable_reason?: string;
}

export interface RulePackSource {
  title: string;
  publisher: string;
  /** where the normative text is published */
  url: string;
  /** e.g. `adopted`, `proposal` (PSD3 / PSR) */
  status: 'adopted' | 'proposal';
}

export interface RulePack {
  schema_version: typeof RULE_PACK_SCHEMA;
  /** `ns:rule_pack:<framework>` (CONTRACT section 19) */
  pack_id: string;
  domain: 'generic';
  /** what the mapping covers, in words */
  description: string;
  /** always empty: a mapping reads no dictionary, has no rules and so no tests */
  dictionaries: string[];
  rules: [];
  tests: [];
  /**
   * `ns:rule_pack:<framework>:<version>`, as 1.0.0 served it. Deprecated but kept: projections name it in
   * `rule_pack.rule_pack_id` (a stored, signed format) and clients read it from `GET /v1/compliance/frameworks`.
   */
  rule_pack_id: string;
  /** `soc2`, `iso27001`, `eu_ai_act`, `psd3`, `dora`, `nist_ai_rmf`, … */
  framework: string;
  /** the rule pack's own version (semver): a corrected mapping is a new version */
  version: string;
  title: string;
  source: RulePackSource;
  /** how the framework applies to an authorization runtime, and what it leaves to the operator */
  scope_note: string;
  controls: RuleControl[];
}
