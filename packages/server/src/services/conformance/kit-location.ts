/**
 * Where the kit's files are: `AAR_CONFORMANCE_DIR` when set; else `conformance/` beside the server package (a packed
 * copy) or at the repository root. The same relative walk works from src/ and from dist/ (both sit one level below
 * the package root), so the compiled `aar` finds the fixtures too. The JSON Schemas come from the server package's
 * `schemas/` (the registry served at /v1/schemas) and the kit's own `conformance/schemas/`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

export function conformanceDirectory(env: Record<string, string | undefined> = process.env): string {
  if (env.AAR_CONFORMANCE_DIR) return env.AAR_CONFORMANCE_DIR;
  const candidates = [`${PACKAGE_ROOT}conformance`, `${REPOSITORY_ROOT}conformance`];
  const found = candidates.find((dir) => existsSync(`${dir}/worlds`));
  if (!found) throw new Error(`the conformance kit is not installed (looked in ${candidates.join(', ')})`);
  return found;
}

/** The schema registry of the server package (`packages/server/schemas`). */
export function schemaRegistryDirectory(): string {
  return `${PACKAGE_ROOT}schemas`;
}
