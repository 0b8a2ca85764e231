/**
 * The two delegation checks, from one run of verifyDelegationChain at decision time (bundle-context.ts), its
 * problems split by kind: signatures and shape (delegation_chain_signatures), the child ⊆ parent rules and order
 * (delegation_attenuation). Expiry, revocation and retired keys are temporal_validity's (temporal-check.ts).
 * Both also bind the chain to the decision: it must be the chain the decision read, and the scope snapshot must
 * state the same links' own scopes and their intersection.
 */
import { isRecord, ownValue } from '../decide/guards.ts';
import type { ChainProblem, ChainProblemCode } from '../delegation/chain-problem.ts';
import { readWireScope } from '../delegation/read-wire-scope.ts';
import { tryCanonicalJson } from '../json/write-canonical-json.ts';
import type { BundleContext } from './bundle-context.ts';
import type { BundleCheckOutcome } from './bundle-verification.ts';

const SIGNATURE_PROBLEMS: ReadonlySet<ChainProblemCode> = new Set([
  'malformed_chain',
  'too_many_links',
  'document_signature_invalid',
  'leaf_mismatch',
  'malformed_link',
  'link_signature_invalid',
  'delegator_signature_invalid',
  'delegator_key_mismatch',
  'statement_mismatch',
]);

const ATTENUATION_PROBLEMS: ReadonlySet<ChainProblemCode> = new Set([
  'not_a_root',
  'wrong_parent',
  'repeated_link',
  'wrong_depth',
  'issued_before_parent',
  'entity_cycle',
  'principal_mismatch',
  'instrument_mismatch',
  'capability_wider',
  'scope_wider',
  'not_delegable',
  'too_deep',
  'delegator_mismatch',
]);

/** A link signed by a key retired before the link was issued: a question of time, not of bytes. */
export function isRetiredKeyProblem(p: ChainProblem): boolean {
  return p.code === 'link_signature_invalid' && p.field === '/signature/key_id';
}

function describe(problems: ChainProblem[]): string {
  return problems
    .slice(0, 5)
    .map((p) => `${p.code}${p.index === null ? '' : ` at link ${p.index}`}${p.field ? ` ${p.field}` : ''}`)
    .join(', ');
}

const sameJson = (a: unknown, b: unknown) => {
  const left = tryCanonicalJson(a);
  return left !== undefined && left === tryCanonicalJson(b);
};

function chainLinkIds(chain: unknown): unknown[] {
  const links = ownValue(chain, 'links');
  return Array.isArray(links) ? links.map((l) => ownValue(l, 'grant_id')) : [];
}

export function checkDelegationChainSignatures(ctx: BundleContext): BundleCheckOutcome {
  const doc = ctx.part('delegation_chain');
  if (ctx.decidingChain === undefined) return 'the evidence pack does not say which grant chain decided';
  if (ctx.decidingChain.length === 0) {
    return doc === null
      ? { ok: true, detail: 'the decision read no grant: no chain' }
      : 'the decision read no grant, yet the bundle carries a chain';
  }
  if (!isRecord(doc) || ctx.chain === undefined) return 'the bundle has no delegation chain';
  const problems = ctx.chain.problems.filter((p) => SIGNATURE_PROBLEMS.has(p.code) && !isRetiredKeyProblem(p));
  if (problems.length > 0) return `the chain does not verify: ${describe(problems)}`;
  if (!ctx.chain.document_signed) return 'the chain carries no service signature over its states';
  if (!sameJson(chainLinkIds(doc), ctx.decidingChain)) return 'the chain is not the one the decision read';
  const delegated = ctx.chain.links.filter((l) => l.delegator_signed).length;
  return { ok: true, detail: `${ctx.chain.links.length} link(s) signed; ${delegated} delegator statement(s) verified` };
}

export function checkDelegationAttenuation(ctx: BundleContext): BundleCheckOutcome {
  const doc = ctx.part('delegation_chain');
  const scope = ctx.part('scope_snapshot');
  if (ctx.decidingChain === undefined) return 'the evidence pack does not say which grant chain decided';
  if (ctx.decidingChain.length === 0) {
    const empty = ownValue(scope, 'effective_scope') === null && sameJson(ownValue(scope, 'links'), []);
    return empty
      ? { ok: true, detail: 'no chain, an empty scope snapshot' }
      : 'the scope snapshot is not empty, yet the decision read no grant';
  }
  if (!isRecord(doc) || ctx.chain === undefined) return 'the bundle has no delegation chain';
  const problems = ctx.chain.problems.filter((p) => ATTENUATION_PROBLEMS.has(p.code));
  if (problems.length > 0) return `a link is not within its parent: ${describe(problems)}`;
  // the scope snapshot states the chain's links, each with the link's own signed scope, and their intersection
  const links = ownValue(scope, 'links');
  const chainLinks = ownValue(doc, 'links') as unknown[];
  if (!Array.isArray(links) || links.length !== chainLinks.length)
    return 'the scope snapshot does not list the chain links';
  for (const [i, link] of links.entries()) {
    if (ownValue(link, 'grant_id') !== ownValue(chainLinks[i], 'grant_id'))
      return `scope snapshot link ${i} is another grant`;
    if (!sameJson(ownValue(link, 'scope'), ownValue(chainLinks[i], 'scope'))) {
      return `scope snapshot link ${i} differs from the signed link's scope`;
    }
  }
  const effective = readWireScope(ownValue(scope, 'effective_scope'));
  if (effective.malformed.length > 0 || !sameJson(effective.scope, ctx.chain.effective_scope)) {
    return "the scope snapshot's effective scope is not the intersection of the chain's links";
  }
  return { ok: true, detail: `every link within its parent; the effective scope is the links' intersection` };
}
