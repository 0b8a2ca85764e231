/**
 * The delegator's half of a link: the statement it signed, checked with the key the link carries under the
 * service's signature (that is what makes the key trustworthy offline: the service attests it was the delegator's
 * registered key when the link was issued). Attacker assumption: every member is hostile; a key id is looked up
 * only as the one key of this link, never fetched or taken from the statement.
 */
import { isRecord, ownValue } from '../decide/guards.ts';
import { sameEntity } from '../decide/same-ref.ts';
import { jwkThumbprint, parsePublicEd25519Jwk, type Ed25519PublicJwk } from '../signing/ed25519-jwk.ts';
import { verifyDocument } from '../signing/verify-document.ts';
import type { ChainProblemCode } from './chain-problem.ts';
import { findStatementMismatches, type StatementLinkFacts } from './delegation-statement.ts';

export interface LinkDelegationProblem {
  code: ChainProblemCode;
  field: string;
  message: string;
}

/**
 * Problems of `delegation` (a link's `delegation` member) for `link` under `parent`; empty when the delegator's
 * signature verifies and its statement authorises exactly this link. `listedKeys` are the chain's
 * `keys.delegators`: a listed key for this delegator must be the same key.
 */
export async function verifyLinkDelegation(
  delegation: unknown,
  link: StatementLinkFacts,
  parent: StatementLinkFacts,
  listedKeys: unknown,
): Promise<LinkDelegationProblem[]> {
  if (!isRecord(delegation)) return [bad('delegator_signature_invalid', '/delegation', 'is not an object')];
  let key: Ed25519PublicJwk;
  try {
    key = parsePublicEd25519Jwk(ownValue(delegation, 'delegator_key'), '');
  } catch {
    return [bad('delegator_signature_invalid', '/delegation/delegator_key', 'is not an ed25519 public jwk')];
  }
  const kid = key.kid;
  if (kid === undefined || !sameEntity(kid, parent.actor_entity_id)) {
    return [bad('delegator_mismatch', '/delegation/delegator_key/kid', "is not the parent's actor")];
  }
  const problems: LinkDelegationProblem[] = [];
  if ((await jwkThumbprint(key)) !== ownValue(delegation, 'delegator_key_thumbprint')) {
    problems.push(
      bad('delegator_key_mismatch', '/delegation/delegator_key_thumbprint', 'is not the thumbprint of the key'),
    );
  }
  const listed = Array.isArray(listedKeys)
    ? listedKeys.filter((k): k is Record<string, unknown> => isRecord(k) && sameEntity(k.kid, kid))
    : [];
  if (listed.some((k) => k.x !== key.x)) {
    problems.push(
      bad('delegator_key_mismatch', '/delegation/delegator_key', 'differs from the key the chain lists for it'),
    );
  }
  const statement = ownValue(delegation, 'statement');
  const verified = await verifyDocument(statement, (id) => (id === kid ? key : undefined));
  if (!verified.valid) {
    problems.push(
      bad('delegator_signature_invalid', '/delegation/statement/signature', `does not verify (${verified.failure})`),
    );
  }
  for (const pointer of findStatementMismatches(statement, link, parent)) {
    problems.push(bad('statement_mismatch', `/delegation/statement${pointer}`, 'does not match the link'));
  }
  return problems;
}

function bad(code: ChainProblemCode, field: string, message: string): LinkDelegationProblem {
  return { code, field, message };
}
