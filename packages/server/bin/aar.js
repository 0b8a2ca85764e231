#!/usr/bin/env node
// The `aar` CLI. It runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci` runs through the
// root `prepare` script). AAR_FROM_SOURCE=1 runs the TypeScript sources through tsx instead, with the workspace
// packages resolved to their sources too (the `aar-source` export condition): the tests' spawned servers do this,
// so they never run a stale build.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
let main;
if (process.env.AAR_FROM_SOURCE === '1' || !existsSync(compiled)) {
  if (process.env.AAR_FROM_SOURCE !== '1') {
    process.stderr.write('aar: no build in packages/server/dist (run `npm run build`); running the sources\n');
  }
  register(
    'data:text/javascript,export async function resolve(s,c,n){return n(s,{...c,conditions:[...c.conditions,"aar-source"]})}',
  );
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  ({ main } = await import(compiled.href));
}
process.exitCode = await main(process.argv);
