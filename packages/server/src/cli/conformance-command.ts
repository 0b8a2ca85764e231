/**
 * `aar conformance run --base-url URL --token T [--profile P]…`: runs the conformance kit (CONTRACT section 14)
 * black-box against any deployment and prints a table. Exit status: 0 every selected fixture passed (skipped ones
 * allowed), 1 at least one failed, 2 the kit or the arguments could not be used.
 * The token is an admin token of that deployment (the fixtures create entities, grants and credentials, all with
 * ids unique to the run); `AAR_CONFORMANCE_TOKEN` keeps it out of the process list.
 */
import { CommanderError, type Command } from 'commander';
import cliProgress from 'cli-progress';
import type { FixtureResult, UnsignedConformanceReport } from '@aar/core';
import { conformanceDirectory, schemaRegistryDirectory } from '../services/conformance/kit-location.ts';
import { loadConformanceKit } from '../services/conformance/load-kit.ts';
import { runConformanceKit } from '../services/conformance/run-kit.ts';
import { SchemaValidators } from '../services/conformance/schema-validators.ts';

interface RunFlags {
  baseUrl: string;
  token?: string;
  profile?: string[];
  fixture?: string[];
  publicUrl?: string;
  concurrency: string;
  fixtures?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerConformanceCommand(program: Command): void {
  const conformance = program.command('conformance').description('the conformance kit (docs/conformance.md)');
  conformance
    .command('run')
    .description('run the conformance fixtures against a deployment and print what passed')
    .requiredOption('--base-url <url>', 'where the deployment answers, e.g. https://aar.example.com')
    .option('--token <token>', 'an admin token of that deployment (or AAR_CONFORMANCE_TOKEN)')
    .option('--profile <profile>', 'run only this profile (repeatable), e.g. ns.core.v1', collect)
    .option('--fixture <id>', 'run only this fixture (repeatable)', collect)
    .option('--public-url <url>', 'the public URL agent signatures are made for (AAR_PUBLIC_URL); default --base-url')
    .option('--concurrency <n>', 'fixtures in flight at once', '4')
    .option('--fixtures <dir>', 'the kit folder (default the installed conformance/)')
    .option('--json', 'print the report as JSON instead of the table')
    .action(async (flags: RunFlags) => {
      const status = await runCommand(flags);
      if (status !== 0) throw new CommanderError(status, 'aar.conformance', status === 1 ? 'failed' : 'error');
    });
}

async function runCommand(flags: RunFlags): Promise<number> {
  const token = flags.token ?? process.env.AAR_CONFORMANCE_TOKEN;
  if (!token) {
    process.stderr.write('aar: --token (or AAR_CONFORMANCE_TOKEN) is required\n');
    return 2;
  }
  const concurrency = Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
    process.stderr.write('aar: --concurrency must be a whole number from 1 to 16\n');
    return 2;
  }
  let kit;
  try {
    kit = loadConformanceKit(flags.fixtures ?? conformanceDirectory());
  } catch (error) {
    process.stderr.write(`aar: ${(error as Error).message}\n`);
    return 2;
  }
  const schemas = new SchemaValidators([schemaRegistryDirectory(), `${kit.directory}/schemas`]);
  const bar = new cliProgress.SingleBar(
    { format: 'conformance [{bar}] {value}/{total} {fixture}', hideCursor: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let report: UnsignedConformanceReport;
  try {
    let started = false;
    report = await runConformanceKit({
      kit,
      schemas,
      target: { baseUrl: flags.baseUrl, token, ...(flags.publicUrl ? { signingOrigin: flags.publicUrl } : {}) },
      ...(flags.profile ? { profiles: flags.profile } : {}),
      ...(flags.fixture ? { fixtureIds: flags.fixture } : {}),
      concurrency,
      onResult: (result, done, total) => {
        if (!started) {
          bar.start(total, 0, { fixture: '' });
          started = true;
        }
        bar.update(done, { fixture: result.fixture_id });
      },
    });
  } catch (error) {
    process.stderr.write(`aar: ${(error as Error).message}\n`);
    return 2;
  } finally {
    bar.stop();
  }
  process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : table(report));
  return report.passed ? 0 : 1;
}

function table(report: UnsignedConformanceReport): string {
  const rows = report.results.map((r) => [
    r.status.toUpperCase(),
    r.fixture_id,
    r.profile,
    `${r.duration_ms} ms`,
    note(r),
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => row[i]!.length), 4));
  const line = (row: string[]) => `${row.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c)).join('  ')}`.trimEnd();
  const out = [line(['STATUS', 'FIXTURE', 'PROFILE', 'TIME', 'NOTE']), ...rows.map(line), ''];
  for (const p of report.profiles) {
    out.push(
      `${p.conformant ? 'conformant    ' : 'NOT conformant'}  ${p.profile}  ${p.passed}/${p.fixtures} passed` +
        (p.skipped ? `, ${p.skipped} skipped` : ''),
    );
  }
  const s = report.summary;
  out.push('', `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`, '');
  if (report.preview) {
    out.push('PREVIEW profile: the operations may change incompatibly; this report earns no certification.', '');
  }
  return out.join('\n');
}

function note(r: FixtureResult): string {
  if (r.status === 'skipped') return r.skip_reason ?? '';
  const f = r.failures[0];
  if (!f) return '';
  const where = `step ${f.step}${f.step_id ? ` (${f.step_id})` : ''}${f.pointer ? ` ${f.pointer}` : ''}`;
  return `${where}: ${f.message}`.replace(/\s+/g, ' ').slice(0, 200);
}
