/**
 * What a v1.0 release carries (SPEC "Versioning" 1, 2, 7, 8): the Apache-2.0 licence, and one version, 1.0.0, said
 * alike by every package, every SDK, `/healthz`, the `aar-version` header, the served and committed OpenAPI
 * documents and the newest CHANGELOG section. A release that bumps one place and forgets another fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../src/http/server-version.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { readRepositoryFile } from './markdown.ts';

const RELEASE = '1.0.0';
const version = (path: string) => (JSON.parse(readRepositoryFile(path)) as { version: string }).version;

describe('the v1.0 release', () => {
  it('is licensed under the Apache License 2.0', () => {
    const licence = readRepositoryFile('LICENSE');
    expect(licence).toContain('Apache License');
    expect(licence).toContain('Version 2.0, January 2004');
    expect(licence).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
    expect((JSON.parse(readRepositoryFile('package.json')) as { license: string }).license).toBe('Apache-2.0');
  });

  it('has one version in every package and SDK', () => {
    const packages = ['package.json', 'packages/core', 'packages/sdk', 'packages/server', 'packages/console'];
    for (const path of packages) {
      expect(version(path.endsWith('.json') ? path : `${path}/package.json`), path).toBe(RELEASE);
    }
    expect(SERVER_VERSION).toBe(RELEASE);
    expect(readRepositoryFile('packages/sdk/src/client/aar-client.ts')).toContain(`SDK_VERSION = '${RELEASE}'`);
    expect(readRepositoryFile('sdks/go/client.go')).toContain(`const SDKVersion = "${RELEASE}"`);
    expect(readRepositoryFile('sdks/python/aar_sdk/__init__.py')).toContain(`__version__ = "${RELEASE}"`);
    expect(readRepositoryFile('sdks/python/pyproject.toml')).toMatch(new RegExp(`^version = "${RELEASE}"$`, 'm'));
  });

  it('is the newest dated section of CHANGELOG.md (only `## Unreleased` may stand above it)', () => {
    const headings = [...readRepositoryFile('CHANGELOG.md').matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    const dated = headings.filter((heading) => heading !== 'Unreleased');
    expect(headings.indexOf(dated[0]!)).toBeLessThanOrEqual(1);
    if (headings[0] !== dated[0]) expect(headings[0]).toBe('Unreleased');
    expect(dated[0]).toMatch(new RegExp(`^${RELEASE.replaceAll('.', '\\.')} — \\d{4}-\\d{2}-\\d{2}$`));
  });

  it('is what the committed OpenAPI document says', () => {
    const doc = JSON.parse(readRepositoryFile('docs/openapi.json')) as { info: { version: string } };
    expect(doc.info.version).toBe(RELEASE);
  });
});

describe('the running service says 1.0.0', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime();
  });
  afterAll(async () => rt.close());

  it('on /healthz, in the aar-version header and in the served OpenAPI document', async () => {
    const health = await rt.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.json()).toMatchObject({ version: RELEASE });
    expect(health.headers['aar-version']).toBe(RELEASE);
    const openapi = await rt.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(openapi.json().info.version).toBe(RELEASE);
    expect(openapi.headers['aar-version']).toBe(RELEASE);
    const missing = await rt.app.inject({ method: 'GET', url: '/v1/no-such-route' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['aar-version']).toBe(RELEASE);
  });
});
