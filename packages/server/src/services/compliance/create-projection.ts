/**
 * POST /v1/compliance/projections: projects evidence packs onto one framework's rule pack (core
 * `projectCompliance`) and signs the result as `ns.compliance_projection.v1` (CONTRACT sections 4 and 13).
 * The packs are chosen by id, or as the decisions made in [from, to) (default: the 30 days before now), at most
 * `MAX_PROJECTED_PACKS` either way, so a projection stays a bounded, self-contained document. A pack not yet
 * assembled is assembled and stored on the way (services/evidence), exactly as a GET of it would.
 * Nothing is stored: the signed answer is the record.
 */
import {
  AarError,
  COMPLIANCE_PROJECTION_SCHEMA,
  fieldError,
  parseMintedId,
  projectCompliance,
  signDocument,
  type ComplianceProjection,
  type UnsignedComplianceProjection,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { getEvidencePack } from '../evidence/get-evidence-pack.ts';
import { listEvidencePackIds } from '../evidence/list-evidence-pack-ids.ts';
import { rulePackOf } from './rule-pack-catalogue.ts';

export const MAX_PROJECTED_PACKS = 200;
const DEFAULT_RANGE_MS = 30 * 24 * 3600 * 1000;

export interface ProjectionRequest {
  framework: string;
  evidence_pack_ids?: string[];
  from?: string;
  to?: string;
}

function instant(value: string, path: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw fieldError('invalid_request', path, 'must be an RFC 3339 date-time');
  return date;
}

interface Selection {
  ids: string[];
  selection: UnsignedComplianceProjection['selection'];
}

async function select(ctx: AppContext, body: ProjectionRequest): Promise<Selection> {
  if (body.evidence_pack_ids !== undefined) {
    if (body.from !== undefined || body.to !== undefined) {
      throw fieldError('invalid_request', body.from !== undefined ? '/from' : '/to', 'name packs or a range, not both');
    }
    const ids = body.evidence_pack_ids.map((id, i) => parseMintedId('evidence-pack', id, `/evidence_pack_ids/${i}`));
    const duplicate = ids.findIndex((id, i) => ids.indexOf(id) !== i);
    if (duplicate >= 0) throw fieldError('invalid_request', `/evidence_pack_ids/${duplicate}`, 'appears twice');
    return { ids, selection: { evidence_pack_ids: ids } };
  }
  const to = body.to === undefined ? ctx.clock.now() : instant(body.to, '/to');
  const from = body.from === undefined ? new Date(to.getTime() - DEFAULT_RANGE_MS) : instant(body.from, '/from');
  if (from.getTime() >= to.getTime()) throw fieldError('invalid_request', '/from', 'must be before `to`');
  const range = { from: from.toISOString(), to: to.toISOString() };
  const ids = await listEvidencePackIds(ctx, { ...range, limit: MAX_PROJECTED_PACKS });
  if (ids.length > MAX_PROJECTED_PACKS) {
    throw fieldError(
      'invalid_request',
      '/from',
      `more than ${MAX_PROJECTED_PACKS} decisions were made in the range: narrow it, or name the packs`,
    );
  }
  return { ids, selection: range };
}

async function readPack(ctx: AppContext, credential: Credential | null, id: string, path: string): Promise<unknown> {
  try {
    return JSON.parse(await getEvidencePack(ctx, credential, id)) as unknown;
  } catch (error) {
    if (error instanceof AarError && error.code === 'not_found') {
      throw fieldError('reference_not_found', path, `evidence pack \`${id}\` does not exist`);
    }
    throw error;
  }
}

export async function createProjection(
  ctx: AppContext,
  credential: Credential | null,
  body: ProjectionRequest,
): Promise<ComplianceProjection> {
  const rulePack = rulePackOf(body.framework, 'invalid_request', '/framework');
  const { ids, selection } = await select(ctx, body);
  const packs: unknown[] = [];
  // one at a time: a pack's first read may assemble it and sign a checkpoint
  for (const [i, id] of ids.entries()) packs.push(await readPack(ctx, credential, id, `/evidence_pack_ids/${i}`));
  const unsigned: UnsignedComplianceProjection = {
    schema_version: COMPLIANCE_PROJECTION_SCHEMA,
    projection_id: `ns:compliance_projection:${ctx.newUuid()}`,
    issuer: ctx.config.issuerUrl,
    generated_at: ctx.clock.now().toISOString(),
    selection,
    ...projectCompliance(rulePack, packs),
  };
  return signDocument(unsigned, ctx.keys.current());
}
