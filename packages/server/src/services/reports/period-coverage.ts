/**
 * The control coverage of a report's period, per framework (core frameworkCoverage): the period's evidence packs
 * (all, or an evenly spaced sample of MAX_REPORT_PACKS), read batch by batch (REPORT_PACK_BATCH at a time, so memory
 * stays bounded), each batch projected onto every framework's rule pack, the projections merged.
 * A pack not yet assembled is assembled and stored on the way, as `GET /v1/evidence-packs/{id}` would (which may
 * sign a checkpoint): this runs OUTSIDE any write unit, since assembling is one.
 */
import {
  frameworkCoverage,
  MAX_REPORT_PACKS,
  projectCompliance,
  REPORT_PACK_BATCH,
  sampledRanks,
  type FrameworkCoverage,
  type ProjectionBody,
  type RulePack,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { getEvidencePack } from '../evidence/get-evidence-pack.ts';
import { periodPackIds, type PeriodBounds } from './count-period.ts';

export async function periodCoverage(
  ctx: AppContext,
  period: PeriodBounds,
  rulePacks: readonly RulePack[],
  inPeriod: number,
): Promise<FrameworkCoverage[]> {
  if (rulePacks.length === 0) return [];
  const sample = sampledRanks(inPeriod, MAX_REPORT_PACKS);
  const ids = inPeriod === 0 ? [] : await periodPackIds(ctx.store.db, period, sample.all ? 1 : sample.step);
  const batches: ProjectionBody[][] = rulePacks.map(() => []);
  for (let at = 0; at < ids.length; at += REPORT_PACK_BATCH) {
    const packs: unknown[] = [];
    // one at a time: a pack's first read may assemble it (a write unit of its own)
    for (const id of ids.slice(at, at + REPORT_PACK_BATCH)) {
      packs.push(JSON.parse(await getEvidencePack(ctx, null, id)) as unknown);
    }
    rulePacks.forEach((pack, i) => batches[i]!.push(projectCompliance(pack, packs)));
  }
  // decisions made after the count was taken (a period still filling, on demand) are not in inPeriod: never claim
  // to have projected more packs than the period was counted to hold
  const counted = Math.max(inPeriod, ids.length);
  return rulePacks.map((pack, i) => frameworkCoverage(pack, batches[i]!, counted));
}
