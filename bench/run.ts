/**
 * `npm run bench [-- <name or prefix>...] [--no-record] [--list]`: runs the registered benchmarks one after the
 * other, prints a table per benchmark and appends a dated section to bench/RESULTS.md.
 *
 * To add a benchmark: write bench/<name>.ts exporting a `Benchmark` (bench/lib/bench-report.ts) and add it to
 * BENCHMARKS below. Keep the whole run under ~2 minutes on the 2-core reference machine.
 */
import { fileURLToPath } from 'node:url';
import { auditChain } from './audit-chain.ts';
import { authzenBench } from './authzen.ts';
import { mandatesBench } from './mandates.ts';
import { graphBench } from './graph.ts';
import { authorizeHttp } from './authorize-http.ts';
import { cliStartup } from './cli-startup.ts';
import { decideVsCedar } from './decide-vs-cedar.ts';
import { decisionStorage } from './decision-storage.ts';
import { appendResults } from './lib/append-results.ts';
import { attachRatios } from './lib/attach-ratios.ts';
import type { Benchmark, BenchReport } from './lib/bench-report.ts';
import { describeMachine, formatMachine } from './lib/describe-machine.ts';
import { formatTextTable } from './lib/format-table.ts';
import { revocationCascade } from './revocation-cascade.ts';
import { rulePacks } from './rule-packs.ts';
import { webhookDelivery } from './webhook-delivery.ts';

export const BENCHMARKS: readonly Benchmark[] = [
  decideVsCedar,
  authorizeHttp,
  auditChain,
  decisionStorage,
  revocationCascade,
  cliStartup,
  webhookDelivery,
  rulePacks,
  authzenBench,
  mandatesBench,
  graphBench,
];

const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

/** Exact names first; otherwise every benchmark whose name starts with the argument. */
export function selectBenchmarks(args: readonly string[], all: readonly Benchmark[]): Benchmark[] {
  if (args.length === 0) return [...all];
  const selected = new Set<Benchmark>();
  for (const arg of args) {
    const exact = all.find((b) => b.name === arg);
    const matches = exact ? [exact] : all.filter((b) => b.name.startsWith(arg));
    if (matches.length === 0) {
      throw new Error(`no benchmark named \`${arg}\`; known: ${all.map((b) => b.name).join(', ')}`);
    }
    for (const b of matches) selected.add(b);
  }
  return all.filter((b) => selected.has(b));
}

function describeCommand(args: readonly string[]): string {
  const rest = args.join(' ');
  if (process.env.npm_lifecycle_event === 'bench') return rest ? `npm run bench -- ${rest}` : 'npm run bench';
  return `node --conditions=aar-source --import tsx bench/run.ts${rest ? ` ${rest}` : ''}`;
}

async function main(argv: readonly string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const names = argv.filter((a) => !a.startsWith('--'));
  if (flags.has('--list')) {
    for (const b of BENCHMARKS) console.log(`${b.name}  ${b.description}`);
    return 0;
  }
  let selected: Benchmark[];
  try {
    selected = selectBenchmarks(names, BENCHMARKS);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const startedAt = new Date();
  const started = performance.now();
  const machine = describeMachine();
  console.log(formatMachine(machine).join('\n'));
  const reports: BenchReport[] = [];
  let failed = 0;
  for (const benchmark of selected) {
    console.log(`\n== ${benchmark.name}: ${benchmark.description}`);
    try {
      const report = await benchmark.run();
      reports.push(report);
      console.log(`\n${formatTextTable(attachRatios(report.measurements))}`);
      for (const note of report.notes) console.log(`  - ${note}`);
    } catch (error) {
      failed++;
      console.error(`benchmark \`${benchmark.name}\` failed: ${(error as Error).message}`);
    }
  }
  const durationSeconds = (performance.now() - started) / 1000;
  console.log(`\n${reports.length} benchmark(s) in ${durationSeconds.toFixed(0)} s`);
  if (reports.length > 0 && !flags.has('--no-record')) {
    appendResults(RESULTS_FILE, { startedAt, durationSeconds, command: describeCommand(argv), machine, reports });
    console.log(`appended to ${RESULTS_FILE}`);
  }
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
