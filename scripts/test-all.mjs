#!/usr/bin/env node
// `npm test`: every suite of the repository. Vitest (unit, HTTP, end-to-end, storage on SQLite and PostgreSQL) gets
// the arguments given to `npm test -- …`; then the Python and Go SDK suites run where their toolchains are present.
// A missing toolchain prints how to install it and skips that suite, as the PostgreSQL suite does, except under
// CI=true, where it is a failure: CI must run everything.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ci = process.env.CI === 'true';
const failures = [];

function run(label, command, args, options = {}) {
  console.log(`\n== ${label} ==`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) failures.push(`${label} (exit ${result.status ?? result.signal})`);
}

function has(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'ignore' });
  return result.status === 0;
}

function skipOrFail(label, howToInstall) {
  const message = `[${label}] NOTICE: the toolchain is missing, the suite is SKIPPED. Install it with: ${howToInstall}`;
  if (ci) failures.push(`${label}: toolchain missing under CI=true (${howToInstall})`);
  console.warn(`\n${message}\n`);
}

run('vitest', process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)]);

const sdkSuites = [
  {
    label: 'Python SDK (pytest)',
    script: 'sdks/python/run-tests.sh',
    present: () => has('/usr/bin/python3', ['-c', 'import pytest, cryptography, cbor2']),
    install: 'apt-get install -y python3-cryptography python3-cbor2 python3-pytest',
  },
  {
    label: 'Go SDK (go test)',
    script: 'sdks/go/run-tests.sh',
    present: () => has('go', ['version']),
    install: 'apt-get install -y golang-go',
  },
];
for (const suite of sdkSuites) {
  if (!existsSync(join(root, suite.script))) continue;
  if (!suite.present()) skipOrFail(suite.label, suite.install);
  else run(suite.label, 'bash', [suite.script]);
}

if (failures.length > 0) {
  console.error(`\nFAILED: ${failures.join('; ')}`);
  process.exit(1);
}
