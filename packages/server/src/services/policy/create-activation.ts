/**
 * `POST /v1/rule-activations` (and each pack of a sector pack's apply): a published pack version applied to the
 * deployment, a principal or a grant, `enforce` or `shadow`. Checked inside the writing transaction, so what it
 * checked is what it commits: the pack version published and its stored document as signed, every dictionary it
 * declares published, the target existing (an active person or organisation; a grant), the pack's domain fitting the
 * target (a `generic` pack decides no purchase, so it is never applied to a grant), and no identical active activation.
 * Refused with problem+json naming the field; one `ns.rule_activation.created` event whose data the row restates
 * (chained-activation.ts checks every use against it).
 */
import { AarError, type Jwks, type RulePackDocument } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { appendEvent } from '../events/append-event.ts';
import { activationView, type ActivationTarget, type ActivationView } from './activation-view.ts';
import { activationEventData, ACTIVATION_CREATED } from './chained-activation.ts';
import { trustedDocument } from './document-integrity.ts';
import { activationId, parseRef } from './policy-ids.ts';
import { readVersion } from './stored-documents.ts';

export interface ActivationInput {
  name: string;
  version: string;
  target: ActivationTarget;
  mode: 'enforce' | 'shadow';
  /** `ns:sector_pack:<name>@<version>` when a sector pack applies it */
  sectorPack?: string;
  actor: string | null;
  /** where refusals point: `/pack_id` for a request naming the pack, `/rule_packs/<i>` for a sector pack's entry */
  packPointer: string;
}

/** The service's keys, read BEFORE a write unit: inside one, a read on another connection could wait for it. */
export async function serviceKeys(ctx: AppContext): Promise<Jwks> {
  return (await ctx.keys.jwks()) as Jwks;
}

export async function createActivation(ctx: AppContext, input: ActivationInput): Promise<ActivationView> {
  const jwks = await serviceKeys(ctx);
  return ctx.writer.run((trx) => createActivationIn(trx, ctx, input, jwks));
}

export async function createActivationIn(
  trx: Transaction<Database>,
  ctx: AppContext,
  input: ActivationInput,
  jwks: Jwks,
): Promise<ActivationView> {
  const at = input.packPointer;
  const refuse = (code: 'reference_not_found' | 'reference_invalid' | 'conflict', path: string, message: string) =>
    new AarError(code, `${path}: ${message}`, { errors: [{ path, message }] });
  const what = `rule pack \`${input.name}@${input.version}\``;
  const row = await readVersion(trx, 'rule_pack', input.name, input.version);
  if (!row) throw refuse('reference_not_found', at, `${what} does not exist`);
  if (row.state !== 'published')
    throw refuse('reference_invalid', at, `${what} is ${row.state}: only a published version can be activated`);
  const doc = await trustedDocument<RulePackDocument>(ctx, 'rule_pack', row, jwks);
  for (const ref of doc.dictionaries ?? []) {
    const parsed = parseRef('dictionary', ref);
    const dict = parsed && (await readVersion(trx, 'dictionary', parsed.name, parsed.version));
    if (!dict || dict.state !== 'published') {
      throw refuse('reference_invalid', at, `${what} declares \`${ref}\`, which is not published`);
    }
  }

  const { kind, id, principal } = await resolveTarget(trx, input.target);
  if (kind === 'grant' && doc.domain !== 'purchase') {
    throw refuse(
      'reference_invalid',
      '/target/grant_id',
      `${what} is of the \`${doc.domain}\` domain: a grant authorizes purchases, only a \`purchase\` pack applies to it`,
    );
  }
  let duplicate = trx
    .selectFrom('rule_activations')
    .select('activation_id')
    .where('pack_name', '=', input.name)
    .where('version', '=', input.version)
    .where('target_kind', '=', kind)
    .where('mode', '=', input.mode)
    .where('state', '=', 'active');
  duplicate = id === null ? duplicate.where('target_id', 'is', null) : duplicate.where('target_id', '=', id);
  const existing = await duplicate.executeTakeFirst();
  if (existing) {
    throw refuse(
      'conflict',
      at,
      `${what} is already active for this target in \`${input.mode}\` mode (\`${existing.activation_id}\`)`,
    );
  }

  const now = ctx.clock.now().toISOString();
  const activation = {
    activation_id: activationId(ctx.newUuid()),
    pack_name: input.name,
    version: input.version,
    digest: row.digest!,
    target_kind: kind,
    target_id: id,
    mode: input.mode,
    state: 'active' as const,
    sector_pack: input.sectorPack ?? null,
    created_at: now,
    updated_at: now,
  };
  await trx.insertInto('rule_activations').values(activation).execute();
  await appendEvent(trx, ctx, {
    event_type: ACTIVATION_CREATED,
    actor_entity_id: input.actor,
    principal_entity_id: principal,
    subject_ref: activation.activation_id,
    reason_code: input.sectorPack ? 'sector_pack_applied' : 'rule_activation_created',
    data: activationEventData(activation),
  });
  return activationView(activation);
}

async function resolveTarget(
  trx: Transaction<Database>,
  target: ActivationTarget,
): Promise<{ kind: 'deployment' | 'principal' | 'grant'; id: string | null; principal: string | null }> {
  if ('deployment' in target) return { kind: 'deployment', id: null, principal: null };
  if ('principal_entity_id' in target) {
    const id = target.principal_entity_id;
    const path = '/target/principal_entity_id';
    const entity = await trx
      .selectFrom('entities')
      .select(['type', 'state'])
      .where('entity_id', '=', id)
      .executeTakeFirst();
    if (!entity)
      throw new AarError('reference_not_found', `principal \`${id}\` does not exist`, {
        errors: [{ path, message: 'unknown principal' }],
      });
    if (entity.type === 'agent' || entity.state !== 'active') {
      throw new AarError('reference_invalid', `\`${id}\` is no active principal`, {
        errors: [{ path, message: `a ${entity.state} ${entity.type}: only an active person or organisation` }],
      });
    }
    return { kind: 'principal', id, principal: id };
  }
  const id = target.grant_id;
  const grant = await trx
    .selectFrom('grants')
    .select('principal_entity_id')
    .where('grant_id', '=', id)
    .executeTakeFirst();
  if (!grant) {
    throw new AarError('reference_not_found', `grant \`${id}\` does not exist`, {
      errors: [{ path: '/target/grant_id', message: 'unknown grant' }],
    });
  }
  return { kind: 'grant', id, principal: grant.principal_entity_id };
}
