/**
 * Runs a selection of the kit against one deployment and returns the unsigned `ns.conformance_report.v1` body.
 * Fixtures run a few at a time (they share nothing but the deployment); results come back in fixture order.
 * The JWKS is fetched once per run from the deployment, anonymously, as any offline verifier would.
 */
import { randomUUID } from 'node:crypto';
import {
  CONFORMANCE_PROFILE_IDS,
  CONFORMANCE_REPORT_SCHEMA,
  isKitProfile,
  isPreviewConformanceProfile,
  parsePublicEd25519Jwk,
  summarizeFixtureResults,
  summarizeProfiles,
  type FixtureResult,
  type Jwks,
  type UnsignedConformanceReport,
} from '@aar/core';
import { exchange } from './http-exchange.ts';
import type { ConformanceKit, LoadedFixture } from './load-kit.ts';
import { RUN_HEADER } from './run-artifacts.ts';
import { runFixture, type FixtureEnvironment, type RunTarget } from './run-fixture.ts';
import type { SchemaValidators } from './schema-validators.ts';
import { probeWebhookGuard, type WebhookGuardState } from './webhook-guard-probe.ts';

export interface RunKitOptions {
  kit: ConformanceKit;
  schemas: SchemaValidators;
  target: RunTarget;
  /** profiles to run; default all */
  profiles?: readonly string[];
  /** fixture ids to run (within the profiles); default all */
  fixtureIds?: readonly string[];
  /** fixtures in flight at once; default 4 */
  concurrency?: number;
  /** called as each fixture ends (progress bars) */
  onResult?: (result: FixtureResult, done: number, total: number) => void;
  /** the report id, also the run marker (run-artifacts.ts); default a fresh `ns:conformance_report:<uuid>` */
  reportId?: string;
  now?: () => number;
  /** called once the run's artifacts were retired (or with the error that prevented it) */
  onRetired?: (outcome: RetireOutcome) => void;
}

/** What the deployment answered to the retirement of the run's artifacts (`POST /v1/conformance/runs/{id}/retire`). */
export type RetireOutcome = { retired: Record<string, number>; failed: number } | { error: string };

/**
 * A preview profile runs only when named, and alone: mixing it with a stable profile is refused, so no report ever
 * carries preview results beside stable ones (listings and certification read whole reports).
 */
export function isPreviewRun(profiles?: readonly string[]): boolean {
  return (profiles ?? []).some((p) => isPreviewConformanceProfile(p));
}

export function selectFixtures(
  kit: ConformanceKit,
  profiles?: readonly string[],
  fixtureIds?: readonly string[],
): LoadedFixture[] {
  for (const p of profiles ?? []) {
    if (!isKitProfile(p)) throw new Error(`\`${p}\` is not a conformance profile`);
  }
  const preview = isPreviewRun(profiles);
  if (preview && profiles!.some((p) => !isPreviewConformanceProfile(p))) {
    throw new Error('a preview profile runs alone: it cannot be requested with one of the ten profiles');
  }
  return (preview ? kit.preview.fixtures : kit.fixtures).filter(
    (f) =>
      (profiles === undefined || profiles.length === 0 || profiles.includes(f.fixture.profile)) &&
      (fixtureIds === undefined || fixtureIds.includes(f.fixture.fixture_id)),
  );
}

export async function runConformanceKit(options: RunKitOptions): Promise<UnsignedConformanceReport> {
  const now = options.now ?? Date.now;
  const startedAt = new Date(now()).toISOString();
  const selected = selectFixtures(options.kit, options.profiles, options.fixtureIds);
  const base = options.target.baseUrl.replace(/\/+$/, '');
  const target: RunTarget = { ...options.target, baseUrl: base };
  const reportId = options.reportId ?? `ns:conformance_report:${randomUUID()}`;
  // every request names the run, so what it creates is marked, kept out of default lists, and retired at the end
  const runHeaders = { [RUN_HEADER]: reportId };
  let jwksPromise: Promise<Jwks> | undefined;
  const jwks = () => (jwksPromise ??= fetchJwks(base));
  let guardPromise: Promise<WebhookGuardState> | undefined;
  const env: FixtureEnvironment = {
    target,
    schemas: options.schemas,
    jwks,
    now,
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    webhookGuard: () => (guardPromise ??= probeWebhookGuard(target, runHeaders)),
    runHeaders,
  };
  const results: FixtureResult[] = new Array(selected.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < selected.length) {
      const i = next++;
      const { fixture } = selected[i]!;
      const world = fixture.world === undefined ? undefined : options.kit.worlds.get(fixture.world);
      results[i] = await runFixture(fixture, world, env);
      options.onResult?.(results[i], ++done, selected.length);
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, 16));
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    options.onRetired?.(await retireArtifacts(target, reportId));
  }
  const summary = summarizeFixtureResults(results);
  return {
    schema_version: CONFORMANCE_REPORT_SCHEMA,
    report_id: reportId,
    kit: { version: options.kit.version, fixtures: options.kit.fixtures.length, digest: options.kit.digest },
    target: { base_url: options.target.signingOrigin ?? base, server_version: await serverVersion(base) },
    profiles_requested:
      options.profiles && options.profiles.length > 0 ? [...options.profiles] : [...CONFORMANCE_PROFILE_IDS],
    profiles: summarizeProfiles(results),
    summary,
    passed: summary.failed === 0 && summary.fixtures > 0,
    ...(isPreviewRun(options.profiles)
      ? {
          preview: true as const,
          preview_kit: {
            version: options.kit.preview.version,
            fixtures: options.kit.preview.fixtures.length,
            digest: options.kit.preview.digest,
          },
        }
      : {}),
    started_at: startedAt,
    finished_at: new Date(now()).toISOString(),
    results,
  };
}

/** Asks the deployment to retire what the run created; never throws (a failed retirement is reported, not fatal). */
async function retireArtifacts(target: RunTarget, reportId: string): Promise<RetireOutcome> {
  try {
    const res = await exchange({
      method: 'POST',
      url: `${target.baseUrl}/v1/conformance/runs/${encodeURIComponent(reportId)}/retire`,
      headers: { authorization: `Bearer ${target.token}` },
    });
    const body = res.json as { retired?: Record<string, number>; failed?: number } | undefined;
    if (res.status !== 200 || !body?.retired) return { error: `the retirement was answered ${res.status}` };
    return { retired: body.retired, failed: body.failed ?? 0 };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The deployment's JWKS: only well-formed Ed25519 keys are kept (a malformed one fails its documents' checks). */
async function fetchJwks(base: string): Promise<Jwks> {
  const res = await fetch(`${base}/.well-known/jwks.json`, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET /.well-known/jwks.json answered ${res.status}`);
  const body = (await res.json()) as { keys?: unknown };
  const keys = Array.isArray(body.keys) ? body.keys : [];
  return {
    keys: keys.flatMap((k, i) => {
      try {
        return [parsePublicEd25519Jwk(k, `/keys/${i}`)];
      } catch {
        return [];
      }
    }),
  };
}

async function serverVersion(base: string): Promise<string | null> {
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return res.headers.get('aar-version');
  } catch {
    return null;
  }
}
