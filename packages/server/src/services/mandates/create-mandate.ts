/**
 * `POST /v1/mandates` (CONTRACT section 21): an AP2 mandate presentation becomes a grant delegated under an existing
 * grant of the same principal. Order, and what each step refuses (422 `mandate_invalid`, every fault named):
 * 1. verify the presentation (core verifyAp2Presentation): hop 0's key from the registered issuers ONLY
 *    (mandate_issuers), every disclosure digest, every key binding, `sd_hash`, `aud` among AAR_MANDATE_AUDIENCES,
 *    time against ctx.clock;
 * 2. map its constraints onto a grant scope (core ap2MandateToScope): the payees through the body's `payees`
 *    (each a registered merchant), the instruments against the parent grant's card token; a constraint aar cannot
 *    enforce is refused by name (`unsupported_constraint`), never ignored;
 * 3. in ONE write-queue unit: the nonces of its key-binding hops are unused (`nonce_reused`) and recorded, the
 *    grant is checked against the parent chain by the very check of POST /v1/grants (a wider mandate:
 *    `not_subset` per field) and written with `mandate_id` and the signed link's `mandate` member, then the mandate
 *    row and `ns.mandate.accepted`. A refusal at any step writes nothing: the unit rolls back whole.
 * Re-posting a presentation already accepted is 409 `conflict` naming the mandate made from it (a presentation is
 * accepted once: `digest` is unique); another presentation reusing a key-binding nonce is `nonce_reused`.
 * The grant: child of `parent_grant_id`, actor `actor_entity_id`, the parent's principal, capability and card
 * token; `may_delegate: false` unless the mapping says otherwise (a mandate's authority is not passed on).
 * Attacker assumption: the presentation is hostile (core bounds and checks it); the caller is an admin or the
 * principal (mandate-grant-rules.ts), never the agent.
 */
import {
  AarError,
  ap2MandateToScope,
  canonicalJson,
  fieldError,
  mandateDigest,
  mintedId,
  parseEntityId,
  parseMintedId,
  verifyAp2Presentation,
  type MandateError,
} from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database } from '../../store/index.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { writeDelegatedGrant } from '../grants/delegate-grant.ts';
import { parseGrantScope, type StoredScope } from '../grants/grant-scope.ts';
import { isUniqueViolation } from '../unique-violation.ts';
import { trustedIssuers } from './register-issuer.ts';
import { refuseDisclosedCardNumber, validatedAgainstSchemas } from './mandate-content-checks.ts';
import { MANDATE_GRANT_RULES } from './mandate-grant-rules.ts';
import { mintMandateId } from './mandate-ids.ts';
import { mandateInvalid } from './mandate-invalid.ts';
import { mandateView, type Ap2MandateView, type StoredConstraints } from './mandate-view.ts';
import { cardTokenForms, notSubsetErrors, resolveMerchants } from './mandate-parent.ts';

export interface CreateMandateInput {
  format: 'ap2';
  presentation: string;
  parent_grant_id: string;
  actor_entity_id: string;
  payees?: Record<string, string>;
}

export async function createMandate(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateMandateInput,
): Promise<Ap2MandateView> {
  const parentId = parseMintedId('authority:grant', input.parent_grant_id, '/parent_grant_id');
  const grantee = parseEntityId(input.actor_entity_id, '/actor_entity_id').id;
  const now = ctx.clock.now();
  // who may ask is decided again inside the unit (with the chain's principal); an agent is refused before any work
  if (credential === null || (credential.role !== 'admin' && credential.role !== 'principal')) {
    throw new AarError('forbidden', 'only an admin or a principal credential may bring a mandate');
  }

  const verified = await verifyAp2Presentation(input.presentation, {
    issuers: await trustedIssuers(ctx.store.db),
    nowSeconds: Math.floor(now.getTime() / 1000),
    audiences: ctx.config.mandateAudiences,
    ...validatedAgainstSchemas(ctx),
  });
  if (!verified.ok) throw mandateInvalid(verified.errors);
  const v = verified.value;
  // `aar` takes mandates, never cards: a card number disclosed anywhere in the chain is refused before it is stored
  refuseDisclosedCardNumber(v, '');

  const parent = await ctx.store.db
    .selectFrom('grants')
    .select(['resource_id', 'principal_entity_id'])
    .where('grant_id', '=', parentId)
    .executeTakeFirst();
  if (!parent) throw fieldError('reference_not_found', '/parent_grant_id', `grant \`${parentId}\` does not exist`);
  const payees = await resolveMerchants(ctx.store.db, input.payees ?? {}, '/payees');
  const mapped = ap2MandateToScope(v, {
    payees: Object.fromEntries(Object.entries(payees).map(([payee, merchant]) => [payee, `ns:merchant:${merchant}`])),
    instrumentIds: cardTokenForms(parent.resource_id),
    nowSeconds: Math.floor(now.getTime() / 1000),
  });
  if (!mapped.ok) throw mandateInvalid(mapped.errors);

  let own: StoredScope;
  try {
    own = parseGrantScope(mapped.scope as Record<string, unknown>, now, '/presentation/scope');
  } catch (error) {
    // the mapped terms are not a scope this service can hold (e.g. a valid_until already past): refused by name
    if (error instanceof AarError && error.errors) {
      throw mandateInvalid(
        error.errors.map((e) => ({ path: e.path, code: 'unsupported_constraint', detail: e.message })),
      );
    }
    throw error;
  }
  if (own.may_delegate === undefined) own.may_delegate = false;

  const mandateId = mintMandateId('mandate', ctx.newUuid());
  const grantId = mintedId('authority:grant', ctx.newUuid());
  const nowIso = now.toISOString();
  const stored: StoredConstraints = { constraints: mapped.constraints, payees };
  const constraintsText = canonicalJson(stored);
  const expiresAt = v.expiresAt === undefined ? null : new Date(v.expiresAt * 1000).toISOString();

  try {
    return await ctx.writer.run(async (trx) => {
      const written = await writeDelegatedGrant(
        trx,
        ctx,
        credential,
        {
          parentId,
          grantee,
          own,
          grantId,
          now,
          mandate: { mandate_id: mandateId, format: 'ap2', digest: v.digest },
        },
        MANDATE_GRANT_RULES,
      ).catch((error: unknown) => {
        throw notSubsetErrors(error) ?? error;
      });
      // after the caller's right is known (writeDelegatedGrant): whether a presentation exists is not disclosed
      await refuseReplays(trx, v.digest, v.nonces, nowIso);
      // the event first: the row's created_at is the event's occurred_at (audit verify compares them)
      const accepted = await appendEvent(trx, ctx, {
        event_type: 'ns.mandate.accepted',
        actor_entity_id: actorOf(credential),
        principal_entity_id: written.row.principal_entity_id,
        subject_ref: mandateId,
        reason_code: 'mandate_accepted',
        data: {
          mandate_id: mandateId,
          format: 'ap2',
          digest: v.digest,
          issuer: v.issuer,
          grant_id: grantId,
          parent_grant_id: parentId,
          grantee_entity_id: grantee,
          single_use: mapped.singleUse,
          expires_at: expiresAt,
          checkout_session_id: mapped.checkoutSessionId ?? null,
          constraints_digest: mandateDigest(constraintsText),
        },
      });
      const row = await trx
        .insertInto('mandates')
        .values({
          mandate_id: mandateId,
          format: 'ap2',
          digest: v.digest,
          issuer: v.issuer,
          principal_entity_id: written.row.principal_entity_id,
          actor_entity_id: grantee,
          parent_grant_id: parentId,
          root_grant_id: written.root.grant_id,
          grant_id: grantId,
          constraints: constraintsText,
          document: input.presentation,
          single_use: mapped.singleUse ? 1 : 0,
          checkout_session_id: mapped.checkoutSessionId ?? null,
          vaulted_token_id: null,
          idempotency_key: null,
          expires_at: expiresAt,
          used_by: null,
          created_at: accepted.occurred_at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return mandateView(row, written.view, 'active') as Ap2MandateView;
    });
  } catch (error) {
    // two instances accepting the same presentation or nonce at once: the unique keys let one commit
    if (isUniqueViolation(error)) {
      throw new AarError('conflict', 'this presentation, or one of its key-binding nonces, was accepted just now', {
        errors: [{ path: '/presentation', message: 'was accepted already' }],
      });
    }
    throw error;
  }
}

/** A presentation is accepted once (409 naming its mandate); a key-binding nonce once per holder key. */
async function refuseReplays(
  trx: Transaction<Database>,
  digest: string,
  nonces: ReadonlyArray<{ keyThumbprint: string; nonce: string; hop: number }>,
  nowIso: string,
): Promise<void> {
  const known = await trx
    .selectFrom('mandates')
    .select('mandate_id')
    .where('format', '=', 'ap2')
    .where('digest', '=', digest)
    .executeTakeFirst();
  if (known) {
    throw new AarError('conflict', `this presentation was accepted already as \`${known.mandate_id}\``, {
      errors: [{ path: '/presentation', message: `was accepted already as \`${known.mandate_id}\`` }],
      extra: { mandate_id: known.mandate_id },
    });
  }
  const reused: MandateError[] = [];
  for (const n of nonces) {
    const used = await trx
      .selectFrom('mandate_nonces')
      .select('nonce')
      .where('key_thumbprint', '=', n.keyThumbprint)
      .where('nonce', '=', n.nonce)
      .executeTakeFirst();
    if (used) {
      reused.push({
        path: `/presentation/hops/${n.hop}/payload/nonce`,
        code: 'nonce_reused',
        detail: 'this key-binding nonce was already used with this holder key',
      });
    }
  }
  if (reused.length > 0) throw mandateInvalid(reused);
  const fresh = new Map(nonces.map((n) => [`${n.keyThumbprint} ${n.nonce}`, n]));
  if (fresh.size < nonces.length) {
    throw mandateInvalid([
      { path: '/presentation', code: 'nonce_reused', detail: 'two key-binding hops of one key share a nonce' },
    ]);
  }
  for (const n of fresh.values()) {
    await trx
      .insertInto('mandate_nonces')
      .values({ key_thumbprint: n.keyThumbprint, nonce: n.nonce, created_at: nowIso })
      .execute();
  }
}
