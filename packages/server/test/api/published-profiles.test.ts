/**
 * Every profile a connector manifest names in `supported_profiles` is one `GET /v1/conformance/profiles` publishes:
 * the ten conformance profiles, or the three webhook signing profiles (`ns.webhooks.shared_secret.v1`,
 * `.asymmetric.v1`, `.cose.v1`) under `signing_profiles`. A manifest cannot claim a profile nobody can look up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorManifest } from '@aar/core';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => rt?.close());

async function get(url: string): Promise<Json> {
  const res = await rt.app.inject({ method: 'GET', url, headers: auth() });
  expect(res.statusCode, url).toBe(200);
  return JSON.parse(res.body) as Json;
}

describe('the profiles connector manifests name', () => {
  it('are all published by GET /v1/conformance/profiles', async () => {
    const published = await get('/v1/conformance/profiles');
    const names = new Set<string>([
      ...(published.profiles as Json[]).map((p) => p.profile as string),
      ...(published.signing_profiles as Json[]).map((p) => p.profile as string),
    ]);
    const manifests = (await get('/v1/connectors')).items as ConnectorManifest[];
    expect(manifests.length).toBeGreaterThan(40);
    const named = new Set(manifests.flatMap((m) => m.supported_profiles));
    expect([...named].filter((profile) => !names.has(profile))).toEqual([]);
    expect(named.has('ns.webhooks.cose.v1')).toBe(true);
  });

  it('publishes the three signing profiles, each under the webhooks conformance profile', async () => {
    const published = await get('/v1/conformance/profiles');
    expect(published.signing_profiles).toEqual([
      expect.objectContaining({ profile: 'ns.webhooks.shared_secret.v1', conformance_profile: 'ns.webhooks.v1' }),
      expect.objectContaining({ profile: 'ns.webhooks.asymmetric.v1', conformance_profile: 'ns.webhooks.v1' }),
      expect.objectContaining({ profile: 'ns.webhooks.cose.v1', conformance_profile: 'ns.webhooks.v1' }),
    ]);
    for (const p of published.signing_profiles as Json[]) expect(p.title.length).toBeGreaterThan(5);
  });

  it('filters connectors by a published signing profile', async () => {
    const cose = (await get('/v1/connectors?profile=ns.webhooks.cose.v1')).items as ConnectorManifest[];
    expect(cose.length).toBeGreaterThan(0);
    expect(cose.every((m) => m.supported_profiles.includes('ns.webhooks.cose.v1'))).toBe(true);
  });
});
