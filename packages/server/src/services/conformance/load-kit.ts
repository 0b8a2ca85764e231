/**
 * Loads the kit: every fixture under `conformance/` (but `worlds/` and `schemas/`), every world, checked by core's
 * parser before anything runs. A duplicate id, an unknown world or a malformed file stops the load: a broken kit
 * must never look like a passing one.
 * The fixtures of PREVIEW profiles live in `conformance/preview/` and are kept apart (`kit.preview`): `kit.fixtures`,
 * its count and its digest are the stable kit's alone, so a run without `profiles`, its report and every listing
 * score built on it are the same whether or not preview fixtures are installed.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  canonicalJson,
  isPreviewConformanceProfile,
  parseFixture,
  parseFixtureWorld,
  type Fixture,
  type FixtureWorld,
} from '@aar/core';

/** The version of the kit's format and contents; a new fixture is a minor, a changed expectation a major. */
export const CONFORMANCE_KIT_VERSION = '1.0.0';

export interface LoadedFixture {
  fixture: Fixture;
  /** path relative to the kit folder */
  file: string;
}

export interface ConformanceKit {
  version: string;
  /** sha-256 over every fixture and world file (canonical JSON, sorted by path): which kit ran */
  digest: string;
  directory: string;
  fixtures: LoadedFixture[];
  worlds: ReadonlyMap<string, FixtureWorld>;
  /** the preview profiles' fixtures (`conformance/preview/`), never part of `fixtures` or `digest` */
  preview: { version: string; digest: string; fixtures: LoadedFixture[] };
}

/** The preview kit's version: it may change incompatibly with any minor of the service (SPEC "Preview"). */
export const CONFORMANCE_PREVIEW_KIT_VERSION = '0.1.0';

const PREVIEW_DIRECTORY = 'preview';
const SKIPPED_DIRECTORIES = new Set(['worlds', 'schemas', PREVIEW_DIRECTORY]);

export function loadConformanceKit(directory: string): ConformanceKit {
  const worlds = new Map<string, FixtureWorld>();
  const hash = createHash('sha256');
  for (const file of jsonFiles(join(directory, 'worlds'))) {
    const world = parseFixtureWorld(readJson(file, directory));
    if (worlds.has(world.world)) throw new Error(`world \`${world.world}\` is defined twice`);
    worlds.set(world.world, world);
  }
  const ids = new Set<string>();
  const fixtures = loadFixtures(directory, jsonFiles(directory, true), worlds, ids, false);
  const all = [...worlds.values(), ...fixtures.map((f) => f.fixture)];
  for (const doc of all.map((d) => canonicalJson(d)).sort()) hash.update(doc).update('\n');
  const previewDir = join(directory, PREVIEW_DIRECTORY);
  const previewFiles = existsSync(previewDir) ? jsonFiles(previewDir, true) : [];
  const preview = loadFixtures(directory, previewFiles, worlds, ids, true);
  // the preview digest covers the worlds too: they are part of what a preview fixture runs
  const previewHash = createHash('sha256');
  const previewAll = [...worlds.values(), ...preview.map((f) => f.fixture)];
  for (const doc of previewAll.map((d) => canonicalJson(d)).sort()) previewHash.update(doc).update('\n');
  return {
    version: CONFORMANCE_KIT_VERSION,
    digest: `sha-256:${hash.digest('base64url')}`,
    directory,
    fixtures,
    worlds,
    preview: {
      version: CONFORMANCE_PREVIEW_KIT_VERSION,
      digest: `sha-256:${previewHash.digest('base64url')}`,
      fixtures: preview,
    },
  };
}

/** Parses fixture files; a preview file must name a preview profile and a stable file a stable one. */
function loadFixtures(
  directory: string,
  files: readonly string[],
  worlds: ReadonlyMap<string, FixtureWorld>,
  ids: Set<string>,
  preview: boolean,
): LoadedFixture[] {
  const fixtures: LoadedFixture[] = [];
  for (const file of files) {
    const name = relative(directory, file);
    let fixture: Fixture;
    try {
      fixture = parseFixture(readJson(file, directory));
    } catch (error) {
      throw new Error(`conformance fixture \`${name}\`: ${(error as Error).message}`, { cause: error });
    }
    if (ids.has(fixture.fixture_id)) throw new Error(`fixture id \`${fixture.fixture_id}\` is used twice (${name})`);
    if (fixture.world !== undefined && !worlds.has(fixture.world)) {
      throw new Error(`conformance fixture \`${name}\`: world \`${fixture.world}\` does not exist`);
    }
    if (isPreviewConformanceProfile(fixture.profile) !== preview) {
      throw new Error(
        `conformance fixture \`${name}\`: profile \`${fixture.profile}\` ` +
          (preview
            ? `is not a preview profile (preview/ holds only those)`
            : `is a preview profile: move it to preview/`),
      );
    }
    ids.add(fixture.fixture_id);
    fixtures.push({ fixture, file: name });
  }
  return fixtures.sort((a, b) => a.fixture.fixture_id.localeCompare(b.fixture.fixture_id));
}

function readJson(file: string, directory: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`conformance file \`${relative(directory, file)}\` is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function jsonFiles(directory: string, recurse = false, top = true): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (recurse && !(top && SKIPPED_DIRECTORIES.has(entry.name))) out.push(...jsonFiles(path, true, false));
    } else if (entry.name.endsWith('.json')) out.push(path);
  }
  return out.sort();
}
