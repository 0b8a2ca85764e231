/**
 * core's `decide` against Cedar (`@cedar-policy/cedar-wasm`) evaluating the same rules, per input case, in one run.
 * Before anything is timed, both engines answer every case once and must agree (a speed comparison of different
 * answers means nothing). See bench/README.md for what each row includes and what Cedar cannot express.
 */
import { decide } from '@aar/core';
import {
  getCedarLangVersion,
  getCedarSDKVersion,
  isAuthorized,
  statefulIsAuthorized,
} from '@cedar-policy/cedar-wasm/nodejs';
import { DECISION_CASES } from './decide-vs-cedar/cases.ts';
import { preparseCedarPolicies, toCedarCall, toPreparsedCedarCall } from './decide-vs-cedar/cedar-calls.ts';
import { assertAnswersAgree } from './decide-vs-cedar/compare-answers.ts';
import { decideWithEvidence } from './decide-vs-cedar/decide-with-evidence.ts';
import { toCedarRequest } from './decide-vs-cedar/to-cedar-request.ts';
import type { Benchmark, BenchReport } from './lib/bench-report.ts';
import { measureTasks, type TimedTask } from './lib/measure-tasks.ts';

/** 15 tasks × (1 s + 0.25 s warm-up) ≈ 20 s on the reference machine. */
const TIME_MS = 1000;
const WARMUP_MS = 250;

export const decideVsCedar: Benchmark = {
  name: 'decide-vs-cedar',
  description:
    'core `decide` vs Cedar (cedar-wasm) on an equivalent policy set, per case; ratio = Cedar `isAuthorized` mean ÷ task mean.',
  async run(): Promise<BenchReport> {
    preparseCedarPolicies();
    const comparisons = assertAnswersAgree(DECISION_CASES);
    const tasks: TimedTask[] = [];
    for (const c of DECISION_CASES) {
      const { request, snapshot, now, name: group } = c;
      const cedarRequest = toCedarRequest(request, snapshot, now);
      const call = toCedarCall(cedarRequest);
      const preparsedCall = toPreparsedCedarCall(cedarRequest);
      tasks.push(
        { group, name: 'cedar isAuthorized (parses policies)', fn: () => isAuthorized(call), baseline: true },
        { group, name: 'cedar statefulIsAuthorized (preparsed)', fn: () => statefulIsAuthorized(preparsedCall) },
        {
          group,
          name: 'cedar translate snapshot + preparsed',
          fn: () => statefulIsAuthorized(toPreparsedCedarCall(toCedarRequest(request, snapshot, now))),
        },
        { group, name: 'core decide', fn: () => decide(request, snapshot, now) },
        { group, name: 'core decide + map + RFC 8785 bytes', fn: () => decideWithEvidence(request, snapshot, now) },
      );
    }
    const measurements = await measureTasks(tasks, { timeMs: TIME_MS, warmupMs: WARMUP_MS });
    return {
      name: this.name,
      description: this.description,
      measurements,
      notes: [
        `@cedar-policy/cedar-wasm ${getCedarSDKVersion()} (Cedar language ${getCedarLangVersion()}), ${DECISION_CASES.length} cases, ${TIME_MS} ms timed + ${WARMUP_MS} ms warm-up per task`,
        `answers checked before timing: ${comparisons
          .map(
            (c) =>
              `${c.name} → decide ${c.core.decision}/${c.core.reason}, cedar ${c.cedar.decision} [${c.cedar.policyIds.join(', ')}]`,
          )
          .join('; ')}`,
        'evaluation cost only, not features: Cedar sees a root grant whose facts were flattened by the translation (see README)',
      ],
    };
  },
};
