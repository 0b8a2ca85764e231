/**
 * Step 3: a grant chain covers actor + principal + capability + instrument. The server's lookup names the first two
 * reasons; decide re-checks the chain it was given, because a snapshot replayed from evidence is not trusted.
 * Mismatched actor, principal or instrument is `authority_not_found`; a capability or `allowed_actions` of any link
 * that excludes the action is `capability_not_granted`.
 */
import { actionFromSubject, actionsCoveredBy } from '../action-from-subject.ts';
import { ownValue } from '../guards.ts';
import { sameEntity, sameInstrument } from '../same-ref.ts';
import { fail, pass, quote, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkAuthority(ctx: CheckContext): CheckVerdict {
  const { request, snapshot, grants, action } = ctx;
  const lookup: unknown = snapshot.grant_lookup;
  if (lookup === 'authority_not_found') return fail('authority_not_found', 'no grant for this actor and principal');
  if (lookup === 'capability_not_granted') {
    return fail('capability_not_granted', `no grant of ${quote(request.subject)} for this actor and principal`);
  }
  if (lookup !== 'found') return fail('authority_not_found', `grant lookup ${quote(lookup)} is not known`);
  const leaf = grants[grants.length - 1];
  if (!leaf) return fail('authority_not_found', 'grant lookup found no chain');
  const leafId = quote(leaf.grant_id);
  if (!sameEntity(leaf.actor_entity_id, request.actor_entity_id)) {
    return fail('authority_not_found', `grant ${leafId} is for another actor`);
  }
  if (!sameEntity(leaf.principal_entity_id, request.principal_entity_id)) {
    return fail('authority_not_found', `grant ${leafId} is for another principal`);
  }
  if (request.instrument_id !== undefined && !sameInstrument(leaf.resource_id, request.instrument_id)) {
    return fail('authority_not_found', `grant ${leafId} is for another instrument`);
  }
  const subjectAction = actionFromSubject(request.subject);
  if (subjectAction === undefined) {
    return fail('capability_not_granted', `subject ${quote(request.subject)} is not a purchase capability`);
  }
  if (action !== subjectAction) {
    return fail('capability_not_granted', `action ${quote(request.action)} does not match subject`);
  }
  for (const grant of grants) {
    if (!actionsCoveredBy(grant.capability_id).includes(action)) {
      return fail('capability_not_granted', `grant ${quote(grant.grant_id)} capability does not cover ${action}`);
    }
    const allowed = ownValue(grant.scope, 'allowed_actions');
    if (allowed !== undefined && !(Array.isArray(allowed) && allowed.includes(action))) {
      return fail('capability_not_granted', `grant ${quote(grant.grant_id)} allowed_actions excludes ${action}`);
    }
  }
  return pass(`leaf grant ${leafId}`);
}
