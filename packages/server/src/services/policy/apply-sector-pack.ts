/**
 * `POST /v1/sector-packs/{name}/apply` `{ principal_entity_id, mode }`: activates every rule pack the sector pack
 * names for that principal, in ONE transaction: if any one cannot be activated (unknown, not published, a dictionary
 * not published, already active, the principal unknown) nothing is activated and the refusal names the sector pack's
 * entry (`/rule_packs/<i>`) or the request field. One `ns.rule_activation.created` per pack and one
 * `ns.sector_pack.applied` naming them all.
 */
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import type { ActivationView } from './activation-view.ts';
import { createActivationIn, serviceKeys } from './create-activation.ts';
import { parseRef, refOf } from './policy-ids.ts';
import { requireSectorPack } from './sector-packs.ts';

export interface SectorPackApplication {
  sector_pack_id: string;
  version: string;
  digest: string;
  principal_entity_id: string;
  mode: 'enforce' | 'shadow';
  activations: ActivationView[];
}

export async function applySectorPack(
  ctx: AppContext,
  credential: Credential | null,
  name: string,
  input: { principal_entity_id: string; mode: 'enforce' | 'shadow' },
): Promise<SectorPackApplication> {
  const entry = requireSectorPack(ctx, name);
  const { document } = entry;
  const sectorRef = refOf('sector_pack', name, document.version);
  const actor = actorOf(credential);
  const jwks = await serviceKeys(ctx);
  return ctx.writer.run(async (trx) => {
    const activations: ActivationView[] = [];
    for (const [i, ref] of document.rule_packs.entries()) {
      const pack = parseRef('rule_pack', ref)!; // the catalogue holds only valid sector packs
      activations.push(
        await createActivationIn(
          trx,
          ctx,
          {
            name: pack.name,
            version: pack.version,
            target: { principal_entity_id: input.principal_entity_id },
            mode: input.mode,
            sectorPack: sectorRef,
            actor,
            packPointer: `/rule_packs/${i}`,
          },
          jwks,
        ),
      );
    }
    await appendEvent(trx, ctx, {
      event_type: 'ns.sector_pack.applied',
      actor_entity_id: actor,
      principal_entity_id: input.principal_entity_id,
      subject_ref: sectorRef,
      reason_code: 'sector_pack_applied',
      data: {
        sector_pack_id: document.sector_pack_id,
        version: document.version,
        digest: entry.digest,
        mode: input.mode,
        activation_ids: activations.map((a) => a.activation_id),
      },
    });
    return {
      sector_pack_id: document.sector_pack_id,
      version: document.version,
      digest: entry.digest,
      principal_entity_id: input.principal_entity_id,
      mode: input.mode,
      activations,
    };
  });
}
