#!/usr/bin/env node
// Builds dist/aar-verify.js: src/cli.ts with @aar/core, @aar/sdk and their dependencies bundled into one ES module
// that imports nothing but Node's built-ins. So the packed tarball installs with no registry, no other package of
// this repository and no native addon (the verifiers never open a database), on Node 20.
// The workspaces are bundled from their TypeScript sources (the `aar-source` condition): no stale dist/ is read.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));

const result = await build({
  entryPoints: [join(here, 'src', 'cli.ts')],
  outfile: join(here, 'dist', 'aar-verify.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['aar-source'],
  define: { AAR_VERIFY_VERSION: JSON.stringify(version) },
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});

// INVARIANT: the bundle reaches nothing outside itself but node: built-ins (an import of a package would need it
// installed on the auditor's machine).
const external = Object.values(result.metafile.outputs)
  .flatMap((output) => output.imports)
  .filter((entry) => entry.external && !entry.path.startsWith('node:') && !builtinModules.includes(entry.path));
if (external.length > 0) {
  console.error(`aar-verify build: the bundle imports ${external.map((e) => e.path).join(', ')}`);
  process.exit(1);
}
