// Where the public vector sets are: `../shared/vectors/` beside the repository (RFC 8785, RFC 9162, Wycheproof,
// COSE, Standard Webhooks, RFC 9421, OSCAL...). The project reads them there and never copies them into its own
// vectors/, which holds only vectors it writes itself. `AAR_SHARED_VECTORS` names another folder.
//
// A missing folder skips the suites that need it with a printed notice, except under CI=true, where it is a failure:
// CI always has ../shared, so a skip there would hide a lost suite.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

/** The shared vectors folder, whether or not it exists. */
export const SHARED_VECTORS_DIR = process.env.AAR_SHARED_VECTORS ?? join(REPO_ROOT, '..', 'shared', 'vectors');

/**
 * The path of `parts` under the shared vectors, or undefined (after a notice) where it is absent. Under CI=true an
 * absent path throws, so the test file fails instead of skipping.
 */
export function sharedVectorPath(...parts: string[]): string | undefined {
  const path = join(SHARED_VECTORS_DIR, ...parts);
  if (existsSync(path)) return path;
  const message = `shared vectors not found at ${path}: the suite that reads them is SKIPPED (set AAR_SHARED_VECTORS or put ../shared beside the repository)`;
  if (process.env.CI === 'true') throw new Error(`${message}; under CI=true this is a failure`);
  console.warn(`NOTICE: ${message}`);
  return undefined;
}

/** The parsed JSON file at `parts` under the shared vectors, or undefined where it is absent (see sharedVectorPath). */
export function readSharedJson<T>(...parts: string[]): T | undefined {
  const path = sharedVectorPath(...parts);
  return path === undefined ? undefined : (JSON.parse(readFileSync(path, 'utf8')) as T);
}
