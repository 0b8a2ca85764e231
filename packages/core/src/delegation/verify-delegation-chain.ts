/**
 * Offline verification of a delegation chain (`ns.delegation_chain.v1`, CONTRACT section 5): what `aar verify-chain`
 * runs, with no database, only the issuer's JWKS. Pure: the trusted keys and `now` are arguments.
 *
 * Checked for every link, root first: the service signature (against `trustedKeys` only; the chain's own
 * `keys.service` is informative and never trusted), the shape, the order (root without parent, each link the child
 * of the one before, depth = position, issued after its parent), attenuation (child ⊆ parent, field by field, the
 * same rules the service applies when it creates a grant), the delegation limits, entity cycles, the delegator's
 * signature and statement when present, and expiry at `now`. When the document itself carries a valid service
 * signature, the link states it attests (`revoked`, with the `revoked_at` it gives) are checked too.
 *
 * Attacker assumption: `chain` is hostile JSON (reordered, cut, spliced, widened, 10,000 links long, throwing
 * getters). It never throws; every problem names the link (index and grant id) and the field.
 */
import { actionsCoveredBy } from '../decide/action-from-subject.ts';
import { computeEffectiveScope } from '../decide/effective-scope.ts';
import { isNonEmptyString, isNonNegativeSafeInteger, isRecord, ownValue } from '../decide/guards.ts';
import { compareInstants, parseInstant, type Instant } from '../decide/instant.ts';
import { sameEntity } from '../decide/same-ref.ts';
import type { GrantScope } from '../decide/types.ts';
import { tryParseCardTokenRef, tryParseEntityId } from '../ids/identifiers.ts';
import { verifyDocument, type TrustedKeys } from '../signing/verify-document.ts';
import { DELEGATION_CHAIN_SCHEMA, delegationIdOf, GRANT_LINK_SCHEMA, MAX_CHAIN_LINKS } from './chain-documents.ts';
import type { ChainProblem, ChainProblemCode } from './chain-problem.ts';
import type { StatementLinkFacts } from './delegation-statement.ts';
import { findAttenuationViolations, findDelegationLimit, type LinkTerms } from './find-attenuation-violations.ts';
import { readWireScope } from './read-wire-scope.ts';
import { verifyLinkDelegation } from './verify-link-delegation.ts';

export interface ChainLinkReport {
  index: number;
  grant_id: string | null;
  actor_entity_id: string | null;
  /** the link carries a delegator statement whose signature verified */
  delegator_signed: boolean;
  /** the attested state at `as_of`, when the document signature verified */
  state: string | null;
  /** when the link was revoked, as the signed document attests (its `states[i].revoked_at`); null otherwise */
  revoked_at: string | null;
}

export interface VerifyDelegationChainResult {
  valid: boolean;
  links: ChainLinkReport[];
  problems: ChainProblem[];
  /** the document's own signature verified, so its `states` were checked */
  document_signed: boolean;
  /** the intersection of every link's scope (decide's form, minor units), when every link's scope was read */
  effective_scope?: GrantScope;
}

export interface VerifyDelegationChainOptions {
  /** refuse longer chains outright (default MAX_CHAIN_LINKS) */
  maxLinks?: number;
}

/** One link as read: what later links compare themselves with. */
interface ReadLink {
  grantId: string | null;
  facts: StatementLinkFacts;
  /** undefined when a member it needs is malformed */
  terms: LinkTerms | undefined;
  issuedAt: Instant | undefined;
}

export async function verifyDelegationChain(
  chain: unknown,
  trustedKeys: TrustedKeys,
  now: string,
  options: VerifyDelegationChainOptions = {},
): Promise<VerifyDelegationChainResult> {
  try {
    return await verify(chain, trustedKeys, now, options.maxLinks ?? MAX_CHAIN_LINKS);
  } catch {
    // Only hostile shapes get here (throwing getters, proxies): the chain is refused as a whole.
    return {
      valid: false,
      links: [],
      problems: [problem('malformed_chain', null, null, null, 'the chain cannot be read')],
      document_signed: false,
    };
  }
}

async function verify(
  chain: unknown,
  trustedKeys: TrustedKeys,
  now: string,
  maxLinks: number,
): Promise<VerifyDelegationChainResult> {
  const problems: ChainProblem[] = [];
  const result = (links: ChainLinkReport[], documentSigned: boolean, scope?: GrantScope) => ({
    valid: problems.length === 0,
    links,
    problems,
    document_signed: documentSigned,
    ...(scope ? { effective_scope: scope } : {}),
  });
  if (!isRecord(chain) || chain.schema_version !== DELEGATION_CHAIN_SCHEMA) {
    problems.push(problem('malformed_chain', null, null, '/schema_version', `is not \`${DELEGATION_CHAIN_SCHEMA}\``));
    return result([], false);
  }
  const links = ownValue(chain, 'links');
  if (!Array.isArray(links) || links.length === 0) {
    problems.push(problem('malformed_chain', null, null, '/links', 'must be a non-empty array'));
    return result([], false);
  }
  if (links.length > maxLinks) {
    problems.push(problem('too_many_links', null, null, '/links', `has ${links.length} links, at most ${maxLinks}`));
    return result([], false);
  }
  const at = parseInstant(now);
  if (!at) problems.push(problem('malformed_chain', null, null, null, '`now` is not an iso 8601 timestamp'));

  const documentSigned = ownValue(chain, 'signature') !== undefined && (await verifyDocument(chain, trustedKeys)).valid;
  if (ownValue(chain, 'signature') !== undefined && !documentSigned) {
    problems.push(problem('document_signature_invalid', null, null, '/signature', 'does not verify'));
  }
  const states = documentSigned ? ownValue(chain, 'states') : undefined;
  const listedDelegatorKeys = ownValue(ownValue(chain, 'keys'), 'delegators');

  const read: ReadLink[] = [];
  const reports: ChainLinkReport[] = [];
  const seenGrants = new Set<string>();
  for (const [index, link] of links.entries()) {
    const add = (code: ChainProblemCode, field: string | null, message: string) =>
      problems.push(problem(code, index, read[index]?.grantId ?? null, field, message));
    const current = readLink(link);
    read.push(current);
    const report: ChainLinkReport = {
      index,
      grant_id: current.grantId,
      actor_entity_id: typeof current.facts.actor_entity_id === 'string' ? current.facts.actor_entity_id : null,
      delegator_signed: false,
      state: null,
      revoked_at: null,
    };
    reports.push(report);
    if (!isRecord(link)) {
      add('malformed_link', '', 'is not an object');
      continue;
    }
    const signature = await verifyDocument(link, trustedKeys);
    if (!signature.valid) add('link_signature_invalid', '/signature', `does not verify (${signature.failure})`);
    else {
      const retired = retiredBefore(trustedKeys, signature.key_id, current.issuedAt);
      if (retired) add('link_signature_invalid', '/signature/key_id', `the key was retired at \`${retired}\``);
    }
    for (const field of malformedFields(link)) add('malformed_link', field, 'is missing or malformed');

    if (current.grantId !== null) {
      if (seenGrants.has(current.grantId)) add('repeated_link', '/grant_id', 'the grant appears twice in the chain');
      seenGrants.add(current.grantId);
    }
    if (link.depth !== index) add('wrong_depth', '/depth', `is not the link's position ${index}`);
    const parent = read[index - 1];
    if (!parent) {
      if (link.parent_grant_id !== null) add('not_a_root', '/parent_grant_id', 'the first link must be a root grant');
      if (Object.hasOwn(link, 'delegator_entity_id') || Object.hasOwn(link, 'delegation')) {
        add('malformed_link', '/delegation', 'a root grant has no delegator');
      }
    } else {
      checkAgainstParent(link, current, parent, read.slice(0, index), add);
      const delegator = ownValue(link, 'delegator_entity_id');
      if (delegator !== undefined && !sameEntity(delegator, parent.facts.actor_entity_id)) {
        add('delegator_mismatch', '/delegator_entity_id', "is not the parent's actor");
      }
      const delegation = ownValue(link, 'delegation');
      if (delegation !== undefined) {
        const found = await verifyLinkDelegation(delegation, current.facts, parent.facts, listedDelegatorKeys);
        for (const p of found) add(p.code, p.field, p.message);
        report.delegator_signed = found.length === 0;
      }
    }
    const cycle = findEntityCycle(read.slice(0, index + 1));
    if (cycle) add('entity_cycle', '/actor_entity_id', `\`${cycle}\` already holds authority in this chain`);
    const validUntil = current.terms?.scope.valid_until;
    const until = parseInstant(validUntil);
    if (at && until && compareInstants(until, at) <= 0) {
      add('expired', '/scope/valid_until', `expired at \`${String(validUntil)}\``);
    }
    if (documentSigned) {
      const state: unknown = Array.isArray(states) ? states[index] : undefined;
      if (!isRecord(state) || state.grant_id !== current.grantId || typeof state.state !== 'string') {
        problems.push(
          problem('malformed_chain', null, null, `/states/${index}`, 'does not give the state of this link'),
        );
      } else {
        report.state = state.state;
        const revokedAt = typeof state.revoked_at === 'string' ? state.revoked_at : null;
        report.revoked_at = revokedAt;
        if (state.state !== 'active') {
          // the moment of the revocation when the document gives one; `as_of` only says when the state was read
          const when = revokedAt ? `since \`${revokedAt.slice(0, 64)}\`` : `as of \`${String(chain.as_of)}\``;
          add('revoked', null, `is \`${state.state}\` ${when}`);
        }
      }
    }
  }
  checkEnds(chain, read, problems);
  const scopes = read.map((r) => r.terms?.scope);
  const effective = scopes.every((s) => s !== undefined) ? computeEffectiveScope(scopes as GrantScope[]) : undefined;
  return result(reports, documentSigned, effective);
}

function readLink(link: unknown): ReadLink {
  const value = (key: string) => ownValue(link, key);
  const facts: StatementLinkFacts = {
    parent_grant_id: value('parent_grant_id'),
    actor_entity_id: value('actor_entity_id'),
    principal_entity_id: value('principal_entity_id'),
    capability_id: value('capability_id'),
    resource_id: value('resource_id'),
    scope: value('scope'),
    issued_at: value('issued_at'),
    delegator_entity_id: value('delegator_entity_id'),
  };
  const grantId = value('grant_id');
  const scope = readWireScope(facts.scope);
  const wellFormed =
    tryParseEntityId(facts.principal_entity_id) !== undefined &&
    tryParseEntityId(facts.actor_entity_id) !== undefined &&
    tryParseCardTokenRef(facts.resource_id) !== undefined &&
    typeof facts.capability_id === 'string' &&
    scope.malformed.length === 0;
  return {
    grantId: isNonEmptyString(grantId) ? grantId : null,
    facts,
    terms: wellFormed
      ? {
          principal_entity_id: facts.principal_entity_id as string,
          capability_id: facts.capability_id as string,
          resource_id: facts.resource_id as string,
          scope: scope.scope,
        }
      : undefined,
    issuedAt: parseInstant(facts.issued_at),
  };
}

function malformedFields(link: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (link.schema_version !== GRANT_LINK_SCHEMA) out.push('/schema_version');
  if (!isNonEmptyString(link.grant_id) || !link.grant_id.startsWith('ns:authority:grant:')) out.push('/grant_id');
  if (link.parent_grant_id !== null && !isNonEmptyString(link.parent_grant_id)) out.push('/parent_grant_id');
  if (!tryParseEntityId(link.principal_entity_id)) out.push('/principal_entity_id');
  if (!tryParseEntityId(link.actor_entity_id)) out.push('/actor_entity_id');
  if (typeof link.capability_id !== 'string' || actionsCoveredBy(link.capability_id).length === 0) {
    out.push('/capability_id');
  }
  if (tryParseCardTokenRef(link.resource_id) === undefined) out.push('/resource_id');
  if (!isNonNegativeSafeInteger(link.depth)) out.push('/depth');
  if (!parseInstant(link.issued_at)) out.push('/issued_at');
  for (const name of readWireScope(link.scope).malformed) out.push(name === 'scope' ? '/scope' : `/scope/${name}`);
  return out;
}

function checkAgainstParent(
  link: Record<string, unknown>,
  current: ReadLink,
  parent: ReadLink,
  ancestors: readonly ReadLink[],
  add: (code: ChainProblemCode, field: string | null, message: string) => void,
): void {
  if (link.parent_grant_id !== parent.grantId) {
    add('wrong_parent', '/parent_grant_id', `is not the link before it (\`${String(parent.grantId)}\`)`);
  }
  if (current.issuedAt && parent.issuedAt && compareInstants(current.issuedAt, parent.issuedAt) < 0) {
    add('issued_before_parent', '/issued_at', 'is earlier than the parent link');
  }
  const terms = ancestors.map((a) => a.terms);
  if (!current.terms || terms.some((t) => t === undefined)) return; // malformed links are reported already
  const ancestorTerms = terms as LinkTerms[];
  const limit = findDelegationLimit(ancestorTerms.map((t) => t.scope));
  if (limit?.code === 'not_delegable') add('not_delegable', '/parent_grant_id', 'the parent may not be delegated');
  else if (limit) {
    add('too_deep', '/depth', `link ${limit.index} allows ${limit.limit} level(s) of delegation below it`);
  }
  for (const violation of findAttenuationViolations(current.terms, ancestorTerms)) {
    const code: ChainProblemCode =
      violation.path === '/principal_entity_id'
        ? 'principal_mismatch'
        : violation.path === '/resource_id'
          ? 'instrument_mismatch'
          : violation.path === '/capability_id'
            ? 'capability_wider'
            : 'scope_wider';
    add(code, violation.path, violation.message);
  }
}

/** The first entity that holds authority twice on the path principal -> actor of each link. */
function findEntityCycle(links: readonly ReadLink[]): string | undefined {
  const first = links[0];
  const last = links[links.length - 1];
  if (!first || !last) return undefined;
  const earlier = [first.facts.principal_entity_id, ...links.slice(0, -1).map((l) => l.facts.actor_entity_id)];
  const actor = last.facts.actor_entity_id;
  return earlier.some((e) => sameEntity(e, actor)) ? String(actor) : undefined;
}

function checkEnds(chain: Record<string, unknown>, read: readonly ReadLink[], problems: ChainProblem[]): void {
  const root = read[0]?.grantId;
  const leaf = read[read.length - 1]?.grantId;
  const expect = (field: string, want: string | null | undefined) => {
    const got = ownValue(chain, field);
    if (got !== undefined && got !== want) {
      problems.push(problem('leaf_mismatch', null, null, `/${field}`, `does not name the chain's end`));
    }
  };
  expect('root_grant_id', root);
  expect('leaf_grant_id', leaf);
  expect('delegation_id', leaf ? delegationIdOf(leaf) : undefined);
}

/** When the trusted set is a JWKS whose entry for `keyId` has a `valid_until` before `issuedAt`: that time. */
function retiredBefore(trusted: TrustedKeys, keyId: string | undefined, issuedAt: Instant | undefined) {
  if (typeof trusted === 'function' || !keyId || !issuedAt) return undefined;
  const keys: unknown = ownValue(trusted, 'keys');
  const entry = Array.isArray(keys) ? keys.find((k) => isRecord(k) && k.kid === keyId) : undefined;
  const until = ownValue(entry, 'valid_until');
  const untilAt = parseInstant(until);
  return untilAt && compareInstants(issuedAt, untilAt) > 0 ? String(until) : undefined;
}

function problem(
  code: ChainProblemCode,
  index: number | null,
  grantId: string | null,
  field: string | null,
  message: string,
): ChainProblem {
  return { code, index, grant_id: grantId, field, message };
}
