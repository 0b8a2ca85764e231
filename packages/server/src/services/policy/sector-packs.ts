/**
 * Sector packs (CONTRACT section 19, `ns.sector_pack.v1`): shipped with the release only (no operator writes one), so
 * they are data of the release read from packages/server/policy/sector-packs, never a table. Each is checked when
 * read: its structure (core validateSectorPack) and that it names rule packs only, never a sector pack (itself or
 * another: a cycle); one that fails is left out of the catalogue and reported by `sectorPackProblems`. Served signed
 * by the service (CONTRACT section 4; Ed25519 is deterministic, so one key signs the same bytes every time) with its
 * digest, which the activations its apply makes and the `ns.sector_pack.applied` event name.
 */
import {
  AarError,
  policyDocumentDigest,
  signDocument,
  validateSectorPack,
  type RuleProblem,
  type SectorPackDocument,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { policyFolderOf, readShippedContent } from './shipped-content.ts';

export interface SectorPackEntry {
  name: string;
  document: SectorPackDocument;
  digest: string;
}

export function sectorPackProblems(doc: unknown): RuleProblem[] {
  const problems = validateSectorPack(doc);
  const refs = (doc as { rule_packs?: unknown } | null)?.rule_packs;
  const own = (doc as { sector_pack_id?: unknown } | null)?.sector_pack_id;
  if (Array.isArray(refs)) {
    refs.forEach((ref, i) => {
      if (typeof ref !== 'string' || !ref.startsWith('ns:sector_pack:')) return;
      const pointer = `/rule_packs/${i}`;
      const self = typeof own === 'string' && ref.split('@')[0] === own;
      const rest = problems.filter((p) => p.pointer !== pointer);
      problems.length = 0;
      problems.push(...rest, {
        pointer,
        message: self
          ? `${ref} names this sector pack itself: a cycle`
          : `${ref} is a sector pack: a sector pack names rule packs only, so no cycle can form`,
      });
    });
  }
  return problems;
}

/** The valid sector packs of the release, by name (one version each: the last file wins). */
export function sectorPackCatalogue(ctx: AppContext): ReadonlyMap<string, SectorPackEntry> {
  const out = new Map<string, SectorPackEntry>();
  for (const file of readShippedContent(policyFolderOf(ctx)).get('sector_pack') ?? []) {
    const doc = file.document;
    if (!doc || sectorPackProblems(doc).length > 0) continue;
    const { signature: _dropped, ...unsigned } = doc;
    const document = unsigned as unknown as SectorPackDocument;
    const name = document.sector_pack_id.slice('ns:sector_pack:'.length);
    out.set(name, { name, document, digest: policyDocumentDigest(document) });
  }
  return out;
}

export function requireSectorPack(ctx: AppContext, name: string): SectorPackEntry {
  const entry = sectorPackCatalogue(ctx).get(name);
  if (!entry) throw new AarError('not_found', `sector pack \`${name}\` does not exist`);
  return entry;
}

/** The document as served: signed now by the instance's current key. */
export async function signedSectorPack(ctx: AppContext, entry: SectorPackEntry): Promise<SectorPackDocument> {
  return (await signDocument(entry.document, ctx.keys.current())) as SectorPackDocument;
}
