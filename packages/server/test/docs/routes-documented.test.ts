/**
 * Every operation the service serves (its OpenAPI document, generated from the routes as they are, not the
 * committed docs/openapi.json) is named in the documentation: `docs/*.md` or README. A path counts as named when its
 * text appears as the OpenAPI document writes it (`/v1/bundles/{id}/parts/{name}`). docs/audit.md lists the audit
 * routes relative to their mount (`aar audit-serve` serves them at its root), so `/v1/audit/…` may appear there
 * without its prefix.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { readRepositoryFile } from './markdown.ts';

const MOUNTED: Readonly<Record<string, string>> = { '/v1/audit': 'docs/audit.md' };

describe('the documentation names every operation', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime();
  });
  afterAll(async () => rt?.close());

  it('has every OpenAPI path in docs/ or README', () => {
    const pages = readdirSync(new URL('../../../../docs/', import.meta.url)).filter((f) => f.endsWith('.md'));
    const text = [readRepositoryFile('README.md'), ...pages.map((p) => readRepositoryFile(`docs/${p}`))].join('\n');
    const paths = Object.keys((openApiDocument(rt.app) as unknown as { paths: object }).paths);
    expect(paths.length).toBeGreaterThan(60);
    const undocumented = paths.filter((path) => {
      if (text.includes(path)) return false;
      const mount = Object.keys(MOUNTED).find((prefix) => path.startsWith(`${prefix}/`));
      return mount === undefined || !readRepositoryFile(MOUNTED[mount]!).includes(path.slice(mount.length));
    });
    expect(undocumented).toEqual([]);
  });
});
