import type { AppContext } from '../../../app-context.ts';
import { latestConformanceRun } from '../../conformance/conformance-runs.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/** The conformance kit ran against this deployment recently, and passed. */
export const CONFORMANCE_MAX_AGE_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

export async function checkConformanceRun(ctx: AppContext): Promise<SelfAuditCheck> {
  const last = await latestConformanceRun(ctx);
  const remedy =
    'Run the conformance kit against this deployment: POST /v1/conformance/runs (or `aar conformance run ' +
    '--base-url URL --token T`), and fix what it reports.';
  if (!last) {
    return failed('conformance_last_run', 'fail', 'the conformance kit never ran here', { last_run: null }, remedy);
  }
  const ageDays = Math.floor((ctx.clock.now().getTime() - Date.parse(last.created_at)) / DAY_MS);
  const evidence = { last_run: last, age_days: ageDays, max_age_days: CONFORMANCE_MAX_AGE_DAYS };
  if (!last.passed) {
    return failed(
      'conformance_last_run',
      'fail',
      `the last conformance run failed ${last.failed} of ${last.fixtures} fixtures`,
      evidence,
      remedy,
    );
  }
  if (ageDays > CONFORMANCE_MAX_AGE_DAYS) {
    return failed(
      'conformance_last_run',
      'fail',
      `the last conformance run is ${ageDays} days old (more than ${CONFORMANCE_MAX_AGE_DAYS})`,
      evidence,
      remedy,
    );
  }
  return passed('conformance_last_run', `the last conformance run passed ${ageDays} days ago`, evidence);
}
