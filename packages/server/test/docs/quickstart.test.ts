/**
 * docs/quickstart.md is run exactly as written: every `sh` block, in order, in one bash (`set -euo pipefail`, so a
 * failing command fails the test), against a real `aar serve` over a socket, reached as `http://localhost:<port>`
 * the way the tutorial says. The `text` block after a command block is what it must print, line for line; `…` in it
 * stands for any text (ids, keys). Only the block after a `<!-- quickstart-test: not run … -->` comment is skipped:
 * the one that installs and starts the service, which the test does itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../support/spawn-server.ts';
import { readRepositoryFile } from './markdown.ts';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const END_OF_BLOCK = '@@quickstart-end-of-block@@';

interface Step {
  script: string;
  expected?: string[];
}

/** The tutorial's command blocks, each with the output the following `text` block shows. */
function quickstartSteps(markdown: string): Step[] {
  const steps: Step[] = [];
  const lines = markdown.split('\n');
  let skipNext = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('<!-- quickstart-test: not run')) skipNext = true;
    const fence = /^```(\w+)$/.exec(line);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    const body = lines.slice(i + 1, end);
    i = end;
    if (fence[1] === 'sh') {
      if (skipNext) skipNext = false;
      else steps.push({ script: body.join('\n') });
    } else if (fence[1] === 'text' && steps.length > 0 && steps[steps.length - 1]!.expected === undefined) {
      steps[steps.length - 1]!.expected = body;
    }
  }
  return steps;
}

function matches(expected: string, actual: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+?');
  return new RegExp(`^${pattern}$`).test(actual);
}

const tools = ['bash', 'curl', 'jq'].filter((tool) => spawnSync('which', [tool]).status !== 0);
if (tools.length > 0) {
  const message = `docs/quickstart.md needs ${tools.join(', ')}: install them (apt-get install -y ${tools.join(' ')})`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`NOTICE: ${message}; the quickstart test is SKIPPED`);
}

describe.skipIf(tools.length > 0)('docs/quickstart.md, run as written', () => {
  let server: ServerProcess;
  let workDir: string;
  beforeAll(async () => {
    server = await spawnServer({
      AAR_BOOTSTRAP_TOKEN: 'change-me',
      AAR_DATA_DIR: mkdtempSync(join(REPOSITORY_ROOT, '.tmp', 'quickstart-data-')),
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('has command blocks with their outputs', () => {
    const steps = quickstartSteps(readRepositoryFile('docs/quickstart.md'));
    expect(steps.length).toBeGreaterThan(8);
    expect(steps.filter((step) => step.expected).length).toBeGreaterThan(6);
  });

  it('prints what it says, from the first entity to the offline verification and the revocation', () => {
    const steps = quickstartSteps(readRepositoryFile('docs/quickstart.md'));
    mkdirSync(join(REPOSITORY_ROOT, '.tmp'), { recursive: true });
    // inside the repository, so `node` finds @aar/sdk and `npx aar` the CLI, as from a checkout
    workDir = mkdtempSync(join(REPOSITORY_ROOT, '.tmp', 'quickstart-work-'));
    const script = steps.map((step) => `${step.script}\necho '${END_OF_BLOCK}'`).join('\n');
    const port = new URL(server.base).port;
    const { AAR_TOKEN: _unset, ...environment } = process.env; // the tutorial's default, change-me, is the one used
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: workDir,
      env: { ...environment, AAR_URL: `http://localhost:${port}` },
      encoding: 'utf8',
      timeout: 150_000,
    });
    const context = `exit ${run.status}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}\nserver:\n${server.output()}`;
    expect(run.status, context).toBe(0);
    const outputs = run.stdout.split(`${END_OF_BLOCK}\n`);
    expect(outputs.length, context).toBe(steps.length + 1);
    steps.forEach((step, index) => {
      if (!step.expected) return;
      const actual = outputs[index]!.split('\n').filter((line) => line !== '');
      expect(actual.length, `block ${index + 1}:\n${step.script}\nprinted:\n${actual.join('\n')}`).toBe(
        step.expected.length,
      );
      step.expected.forEach((want, line) => {
        expect(matches(want, actual[line]!), `block ${index + 1}, line ${line + 1}: ${actual[line]}`).toBe(true);
      });
    });
  }, 180_000);
});
