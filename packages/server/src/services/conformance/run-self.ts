/**
 * POST /v1/conformance/runs: the service runs the kit against itself over loopback HTTP, as any outside runner
 * would (the same requests, signatures and checks), then signs and stores the report.
 * The fixtures need an admin credential; the run mints one for itself and revokes it when the run ends, whatever
 * the outcome, so no credential outlives the run. One self-run at a time per instance (409 otherwise): the kit
 * creates a few thousand rows and should not be multiplied by an impatient client.
 */
import { randomUUID } from 'node:crypto';
import { AarError, signDocument, type ConformanceReport } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { createToken, revokeToken } from '../tokens/manage-tokens.ts';
import { storeConformanceReport } from './conformance-runs.ts';
import { conformanceDirectory, schemaRegistryDirectory } from './kit-location.ts';
import { loadConformanceKit, type ConformanceKit } from './load-kit.ts';
import { runConformanceKit, selectFixtures } from './run-kit.ts';
import { SchemaValidators } from './schema-validators.ts';

export interface SelfRunInput {
  profiles?: string[] | undefined;
  /** where this instance listens, e.g. `http://127.0.0.1:8080` */
  loopbackUrl: string;
}

let loaded: { kit: ConformanceKit; schemas: SchemaValidators } | undefined;
const running = new WeakSet<AppContext>();

/** The installed kit, loaded once per process. */
export function installedKit(): { kit: ConformanceKit; schemas: SchemaValidators } {
  if (!loaded) {
    const kit = loadConformanceKit(conformanceDirectory());
    loaded = { kit, schemas: new SchemaValidators([schemaRegistryDirectory(), `${kit.directory}/schemas`]) };
  }
  return loaded;
}

export async function runConformanceOnSelf(
  ctx: AppContext,
  credential: Credential | null,
  input: SelfRunInput,
): Promise<ConformanceReport> {
  const { kit, schemas } = installedKit();
  const profiles = input.profiles ?? [];
  let selected: number;
  try {
    selected = selectFixtures(kit, profiles).length;
  } catch (error) {
    // a preview profile named beside a stable one (run-kit.ts isPreviewRun): the request, not the service, is wrong
    throw new AarError('invalid_request', `/profiles: ${(error as Error).message}`, {
      errors: [{ path: '/profiles', message: (error as Error).message }],
    });
  }
  if (selected === 0) {
    throw new AarError('invalid_request', '/profiles: no fixture of these profiles is installed', {
      errors: [{ path: '/profiles', message: 'no fixture of these profiles is installed' }],
    });
  }
  if (running.has(ctx)) throw new AarError('conflict', 'a conformance run is already going on this instance');
  running.add(ctx);
  const reportId = `ns:conformance_report:${randomUUID()}`;
  const token = await createToken(ctx, credential, { role: 'admin', label: `conformance run ${reportId}` });
  try {
    const unsigned = await runConformanceKit({
      kit,
      schemas,
      target: {
        baseUrl: input.loopbackUrl,
        signingOrigin: ctx.config.publicUrls[0] ?? input.loopbackUrl,
        token: token.token,
      },
      profiles,
      reportId,
      now: () => ctx.clock.now().getTime(),
    });
    const report = (await signDocument(unsigned, ctx.keys.current())) as ConformanceReport;
    await storeConformanceReport(ctx, report, actorOf(credential));
    return report;
  } finally {
    running.delete(ctx);
    await revokeToken(ctx, credential, token.token_id);
  }
}
