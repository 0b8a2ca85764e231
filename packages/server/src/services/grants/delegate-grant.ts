/**
 * Sub-delegation (CONTRACT section 5): `POST /v1/grants` with `parent_grant_id`. The parent's actor (the delegator)
 * passes part of its authority on to another entity. INVARIANT: child ⊆ parent, field by field; an omitted field
 * inherits; every offending field is named at once (422 `scope_not_subset`). Everything is checked inside the
 * transaction that writes the grant, so the parent cannot be revoked between the check and the write; a refusal
 * writes nothing (no grant, no event, no audit entry: the unit rolls back to its savepoint).
 *
 * Who may ask (attacker assumption: any credential may try any parent):
 * - an admin credential;
 * - a principal credential bound to the delegator itself (an intermediary that is a person or organisation);
 * - a principal credential bound to the chain's principal (the holder), only when the delegator has a registered
 *   key: the delegator's signature is then required and carries its consent, so the holder cannot delegate in an
 *   intermediary's name without it.
 */
import {
  AarError,
  cardCredentialId,
  fieldError,
  findAttenuationViolations,
  findDelegationLimit,
  mintedId,
  parseCardTokenRef,
  parseEntityId,
  parseMintedId,
  signDocument,
  type LinkTerms,
} from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database } from '../../store/index.ts';
import { toDecideScope } from '../authorize/to-decide-scope.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { duplicateAsConflict } from '../unique-violation.ts';
import type { CreateGrantInput } from './create-grant.ts';
import { verifyDelegatorProof } from './delegator-proof.ts';
import { grantLink, type GrantMandateBinding } from './grant-link.ts';
import type { GrantRow } from './grant-rows.ts';
import { MAX_DELEGATION_DEPTH, parseGrantScope, scopeToWire, type StoredScope, type WireScope } from './grant-scope.ts';
import { grantView, type GrantView } from './grant-view.ts';
import { loadAncestry } from './load-ancestry.ts';
import { GRANTABLE_CAPABILITIES } from './purchase-actions.ts';

export async function delegateGrant(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateGrantInput & { parent_grant_id: string },
): Promise<GrantView> {
  const parentId = parseMintedId('authority:grant', input.parent_grant_id, '/parent_grant_id');
  const grantee = parseEntityId(input.actor_entity_id, '/actor_entity_id').id;
  const principal =
    input.principal_entity_id === undefined
      ? undefined
      : parseEntityId(input.principal_entity_id, '/principal_entity_id', ['person', 'organisation']).id;
  if (input.capability_id !== undefined && !GRANTABLE_CAPABILITIES.includes(input.capability_id)) {
    throw fieldError('invalid_request', '/capability_id', 'is not a capability a grant may name');
  }
  const resource =
    input.resource_id === undefined
      ? undefined
      : cardCredentialId(parseCardTokenRef(input.resource_id, '/resource_id'));
  const now = ctx.clock.now();
  const own = parseGrantScope(input.scope ?? {}, now);
  const { delegator_proof: proof, ...request } = input;
  const grantId = mintedId('authority:grant', ctx.newUuid());

  try {
    return await ctx.writer.run(
      async (trx) =>
        (
          await writeDelegatedGrant(trx, ctx, credential, {
            parentId,
            grantee,
            principal,
            capabilityId: input.capability_id,
            resource,
            own,
            grantId,
            now,
            proof,
            request,
          })
        ).view,
    );
  } catch (error) {
    // two instances accepting the same statement at once: the nonce's primary key lets only one commit
    throw duplicateAsConflict(error, 'a grant for this delegation statement', '/delegator_proof/nonce');
  }
}

/** What one delegated grant is made of (the `POST /v1/grants` body parsed, or a mandate's mapped terms). */
export interface DelegatedGrantWrite {
  parentId: string;
  grantee: string;
  principal?: string | undefined;
  capabilityId?: string | undefined;
  resource?: string | undefined;
  own: StoredScope;
  grantId: string;
  now: Date;
  /** the delegator's proof and the request it signs (POST /v1/grants) */
  proof?: unknown;
  request?: Record<string, unknown>;
  /** a grant made from a mandate or allowance: its binding, in the row and the signed link */
  mandate?: GrantMandateBinding;
}

/**
 * Who may delegate under a parent and whether the delegator's signed statement is checked. POST /v1/grants: the
 * rules of the file comment, statement checked. A mandate (services/mandates) brings its own consent, signed by its
 * issuer and the principal's device, and states its own caller rule.
 */
export interface DelegationRules {
  requireRight(credential: Credential | null, principalId: string, delegatorId: string, delegatorHasKey: boolean): void;
  verifyStatement: boolean;
}

const GRANT_RULES: DelegationRules = { requireRight: requireDelegationRight, verifyStatement: true };

export interface DelegatedGrantWritten {
  row: GrantRow;
  view: GrantView;
  root: GrantRow;
  parent: GrantRow;
  /** the grant's own scope as the event and the link carry it */
  scope: WireScope;
}

/**
 * The checks and writes of one delegated grant, inside the caller's write-queue unit: POST /v1/grants runs it in a
 * unit of its own; a mandate runs it in the unit that also writes the mandate row, so a refusal of either writes
 * nothing. Throws the same refusals as POST /v1/grants (`scope_not_subset` names every wider field).
 */
export async function writeDelegatedGrant(
  trx: Transaction<Database>,
  ctx: AppContext,
  credential: Credential | null,
  w: DelegatedGrantWrite,
  rules: DelegationRules = GRANT_RULES,
): Promise<DelegatedGrantWritten> {
  const { parentId, grantee, principal, resource, own, grantId, now, proof } = w;
  const nowIso = now.toISOString();
  const request = w.request ?? {};
  const input = { capability_id: w.capabilityId };
  const ancestry = await loadAncestry(trx, parentId);
  if (!ancestry) throw fieldError('reference_not_found', '/parent_grant_id', `grant \`${parentId}\` does not exist`);
  const root = ancestry[0] as GrantRow;
  const parent = ancestry[ancestry.length - 1] as GrantRow;
  const delegatorId = parent.actor_entity_id;
  const entityIds = [...new Set([root.principal_entity_id, ...ancestry.map((g) => g.actor_entity_id), grantee])];
  const entities = await trx
    .selectFrom('entities')
    .select(['entity_id', 'state', 'public_key_jwk', 'key_thumbprint'])
    .where('entity_id', 'in', entityIds)
    .execute();
  const entity = (id: string) => entities.find((e) => e.entity_id === id);
  const delegator = entity(delegatorId);
  rules.requireRight(credential, root.principal_entity_id, delegatorId, (delegator?.public_key_jwk ?? null) !== null);

  for (const link of ancestry) {
    if (link.state !== 'active') {
      throw fieldError('reference_invalid', '/parent_grant_id', `grant \`${link.grant_id}\` is ${link.state}`);
    }
    const until = (JSON.parse(link.scope) as StoredScope).valid_until;
    if (until !== undefined && until <= nowIso) {
      throw fieldError('reference_invalid', '/parent_grant_id', `grant \`${link.grant_id}\` expired at \`${until}\``);
    }
  }
  if (ancestry.length > MAX_DELEGATION_DEPTH) {
    throw fieldError(
      'reference_invalid',
      '/parent_grant_id',
      `a chain holds at most ${MAX_DELEGATION_DEPTH} delegations`,
    );
  }
  const ancestorTerms = ancestry.map(termsOf);
  const limit = findDelegationLimit(ancestorTerms.map((t) => t.scope));
  if (limit?.code === 'not_delegable') {
    throw fieldError('reference_invalid', '/parent_grant_id', 'the parent grant may not be delegated (`may_delegate`)');
  }
  if (limit) {
    const holder = ancestry[limit.index]?.grant_id;
    throw fieldError(
      'reference_invalid',
      '/parent_grant_id',
      `grant \`${holder}\` allows ${limit.limit} level(s) of delegation below it (\`max_delegation_depth\`)`,
    );
  }
  for (const id of [root.principal_entity_id, ...ancestry.map((g) => g.actor_entity_id)]) {
    const found = entity(id);
    if (found?.state !== 'active') {
      throw fieldError(
        'reference_invalid',
        '/parent_grant_id',
        `\`${id}\` in the chain is ${found?.state ?? 'missing'}`,
      );
    }
  }
  const granteeRow = entity(grantee);
  if (!granteeRow) throw fieldError('reference_not_found', '/actor_entity_id', `\`${grantee}\` does not exist`);
  if (granteeRow.state !== 'active') {
    throw fieldError('reference_invalid', '/actor_entity_id', `\`${grantee}\` is ${granteeRow.state}`);
  }
  if ([root.principal_entity_id, ...ancestry.map((g) => g.actor_entity_id)].includes(grantee)) {
    throw fieldError('reference_invalid', '/actor_entity_id', `\`${grantee}\` already holds authority in this chain`);
  }
  const token = await trx
    .selectFrom('card_tokens')
    .select(['principal_entity_id', 'state'])
    .where('card_token_id', '=', root.resource_id.replace('ns:credential:card-token:', 'ns:card_token:'))
    .executeTakeFirst();
  if (token?.state !== 'active' || token.principal_entity_id !== root.principal_entity_id) {
    throw fieldError(
      'reference_invalid',
      '/parent_grant_id',
      `the card token of the chain is ${token?.state ?? 'missing'}`,
    );
  }

  const child: LinkTerms = {
    principal_entity_id: principal ?? parent.principal_entity_id,
    capability_id: input.capability_id ?? parent.capability_id,
    resource_id: resource ?? parent.resource_id,
    scope: toDecideScope(own),
  };
  const violations = findAttenuationViolations(child, ancestorTerms);
  if (violations.length > 0) {
    throw new AarError(
      'scope_not_subset',
      `the grant is wider than its parent in ${violations.length} field(s): ${violations.map((v) => v.path).join(', ')}`,
      { errors: violations.map((v) => ({ path: v.path, message: v.message })) },
    );
  }

  const verified = !rules.verifyStatement
    ? undefined
    : await verifyDelegatorProof({
        delegator: {
          entity_id: delegatorId,
          public_key_jwk: delegator?.public_key_jwk ?? null,
          key_thumbprint: delegator?.key_thumbprint ?? null,
        },
        proof,
        request,
        now,
        windowSeconds: ctx.config.signatureWindowSeconds,
      });
  if (verified) {
    const used = await trx
      .selectFrom('delegation_nonces')
      .select('grant_id')
      .where('delegator_entity_id', '=', delegatorId)
      .where('nonce', '=', verified.nonce)
      .executeTakeFirst();
    if (used) throw fieldError('conflict', '/delegator_proof/nonce', 'was already used by this delegator');
  }

  const wireScope = scopeToWire(own);
  const depth = parent.depth + 1;
  const link = await signDocument(
    grantLink({
      grant_id: grantId,
      parent_grant_id: parent.grant_id,
      principal_entity_id: child.principal_entity_id,
      actor_entity_id: grantee,
      capability_id: child.capability_id,
      resource_id: child.resource_id,
      scope: wireScope,
      depth,
      issued_at: nowIso,
      delegator_entity_id: delegatorId,
      ...(verified ? { delegation: verified.delegation } : {}),
      ...(w.mandate ? { mandate: w.mandate } : {}),
    }),
    ctx.keys.current(),
  );
  const row = await trx
    .insertInto('grants')
    .values({
      grant_id: grantId,
      parent_grant_id: parent.grant_id,
      root_grant_id: root.grant_id,
      depth,
      principal_entity_id: child.principal_entity_id,
      actor_entity_id: grantee,
      capability_id: child.capability_id,
      resource_id: child.resource_id,
      scope: JSON.stringify(own),
      state: 'active',
      document: JSON.stringify(link),
      delegator_signature: verified ? JSON.stringify(verified.delegation.statement) : null,
      created_by: credential?.token_id ?? null,
      created_at: nowIso,
      updated_at: nowIso,
      revoked_at: null,
      ...(w.mandate ? { mandate_id: w.mandate.mandate_id } : {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (verified) {
    await trx
      .insertInto('delegation_nonces')
      .values({ delegator_entity_id: delegatorId, nonce: verified.nonce, grant_id: grantId, created_at: nowIso })
      .execute();
  }
  await appendEvent(trx, ctx, {
    event_type: 'ns.authority.delegated',
    actor_entity_id: actorOf(credential),
    principal_entity_id: child.principal_entity_id,
    subject_ref: grantId,
    reason_code: 'authority_delegated',
    data: {
      new_state: 'active',
      parent_grant_id: parent.grant_id,
      root_grant_id: root.grant_id,
      depth,
      delegator_entity_id: delegatorId,
      grantee_entity_id: grantee,
      capability_id: child.capability_id,
      resource_id: child.resource_id,
      scope: wireScope,
      delegator_signed: verified !== undefined,
    },
  });
  return { row, view: grantView(row), root, parent, scope: wireScope };
}

function termsOf(row: GrantRow): LinkTerms {
  return {
    principal_entity_id: row.principal_entity_id,
    capability_id: row.capability_id,
    resource_id: row.resource_id,
    scope: toDecideScope(JSON.parse(row.scope) as StoredScope),
  };
}

function requireDelegationRight(
  credential: Credential | null,
  principalId: string,
  delegatorId: string,
  delegatorHasKey: boolean,
): void {
  if (credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
  if (credential.role === 'admin') return;
  if (credential.role === 'principal') {
    if (credential.principal_entity_id === delegatorId) return;
    if (credential.principal_entity_id === principalId && delegatorHasKey) return;
    if (credential.principal_entity_id === principalId) {
      throw new AarError(
        'forbidden',
        `the delegator \`${delegatorId}\` has no registered key: only its own credential or an admin may delegate for it`,
      );
    }
  }
  throw new AarError('forbidden', `this credential may not delegate for \`${delegatorId}\``);
}
