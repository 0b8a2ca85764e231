/**
 * Issue 27: "authorize CPU per request with 0, 10 and 50 active rules, same run: 50 rules add at most 10 %".
 * `POST /v1/runtime/authorize` over loopback HTTP against one `aar serve` on its embedded default (SQLite, child
 * process, as authorize-http), with rule packs activated deployment-wide through the real API; the groups alternate
 * round by round (0, 10, 50, 50, 10, 0, ...) in one process, so a drift of the shared machine weighs on each alike.
 * Two variants, each on a fresh service: rules reading the request, the merchant and dictionaries only; and rules
 * reading `facts.counters` and `facts.local_time` too (the service then counts the principal's purchases inside
 * every decision's transaction). See bench/README.md.
 */
import os from 'node:os';
import type { Benchmark, BenchReport } from './lib/bench-report.ts';
import { PACKS_PER_VARIANT, RULES_PER_PACK, type RuleVariant } from './rule-packs/bench-packs.ts';
import { alternatingSchedule, type RuleCount } from './rule-packs/rule-switch.ts';
import { runVariant, type VariantOptions, type VariantRuns } from './rule-packs/run-variant.ts';
import { variantMeasurements, variantNotes } from './rule-packs/summarize.ts';

/** closed loop, as authorize-http's max-throughput group */
const CONNECTIONS = 10;
/** each round stops at this many requests or seconds, whichever comes first */
const ROUND_REQUESTS = 4000;
const ROUND_SECONDS = 2;
/** two cycles of 0, 10, 50, 50, 10, 0: four rounds per group and variant */
const CYCLES = Number(process.env.AAR_BENCH_RULE_PACKS_CYCLES ?? 2);
const WARMUP_REQUESTS = 1500;
const SETTLE_REQUESTS = 100;
const SAMPLE_EVERY = 20;

/**
 * Profiling one set-up (bench/README.md, rule-packs): AAR_BENCH_RULE_PACKS_SCHEDULE=50,50,50 runs those rounds only
 * (the warm-up then uses only those counts too) and AAR_BENCH_RULE_PACKS_VARIANTS=request one variant.
 */
const SCHEDULE = process.env.AAR_BENCH_RULE_PACKS_SCHEDULE?.split(',').map((n) => Number(n) as RuleCount);
const VARIANTS = (process.env.AAR_BENCH_RULE_PACKS_VARIANTS?.split(',') ?? ['request', 'facts']) as RuleVariant[];

export const OPTIONS: VariantOptions = {
  schedule: SCHEDULE ?? alternatingSchedule(CYCLES),
  round: { connections: CONNECTIONS, amount: ROUND_REQUESTS, maxSeconds: ROUND_SECONDS, sampleEvery: SAMPLE_EVERY },
  settleRequests: SETTLE_REQUESTS,
  warmupRequests: WARMUP_REQUESTS,
};

export const rulePacks: Benchmark = {
  name: 'rule-packs',
  description:
    'authorize over loopback HTTP (`aar serve`, SQLite) with 0, 10 and 50 active rules (rule packs activated deployment-wide through the API), alternating rounds in one run; server CPU per authorize, ratio = CPU with N rules ÷ with 0 rules; rules reading request facts only, then counters and local time too.',
  async run(): Promise<BenchReport> {
    const loadAtStart = os.loadavg();
    const variants: VariantRuns[] = [];
    for (const variant of VARIANTS) variants.push(await runVariant(variant, OPTIONS));
    const loadAtEnd = os.loadavg();
    const load = (l: number[]) => l.map((x) => x.toFixed(2)).join('/');
    return {
      name: this.name,
      description: this.description,
      measurements: variants.flatMap(variantMeasurements),
      notes: [
        ...variants.flatMap(variantNotes),
        `rounds per variant: ${OPTIONS.schedule.join(', ')} rules; each ${CONNECTIONS} connections, closed loop, at most ${ROUND_REQUESTS} requests or ${ROUND_SECONDS} s; CPU = the server process's user + system time (/proc, all threads) over the round ÷ the allows the store recorded in it; before the rounds ${WARMUP_REQUESTS} untimed requests (shared by the rule counts, most rules first), after each switch ${SETTLE_REQUESTS} untimed`,
        `packs: ${PACKS_PER_VARIANT} per variant, ${RULES_PER_PACK} rules each (bench/rule-packs/bench-packs.ts), drafted, tested and published by the service (signed), activated with POST /v1/rule-activations { deployment: true } and switched off with DELETE; 10 rules = pack 1, 50 rules = packs 1-5; they read the shipped dictionaries mcc_family, high_risk_jurisdiction, jurisdiction_group, so the snapshot carries those too`,
        'every purchase: 1.00 EUR at a grocer (5411, DE) with a three-line grocery basket, signed by the agent beforehand (RFC 9421, a nonce each); no rule matches it: every round must record allows only, every sampled answer (1 in 20) is an allow whose decision map names the expected packs, and one decision per round is read back to check its snapshot (packs, counters, local time)',
        `load average (1/5/15 min) at start ${load(loadAtStart)}, at end ${load(loadAtEnd)} (2 cores: above 2, other work competed; CPU per request moves less than throughput)`,
      ],
    };
  },
};
