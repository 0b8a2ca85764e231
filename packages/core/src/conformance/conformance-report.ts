/**
 * `ns.conformance_report.v1` (CONTRACT section 14): what one run of the kit against one deployment showed. Signed
 * (section 4) by the service that ran it; certification signs over it and self-audit reads its date.
 */
import type { DocumentSignature } from '../signing/sign-document.ts';
import { KIT_PROFILE_IDS } from './profiles.ts';

export const CONFORMANCE_REPORT_SCHEMA = 'ns.conformance_report.v1';

export type FixtureStatus = 'passed' | 'failed' | 'skipped';

export interface FixtureFailure {
  /** the step's index (0-based, world steps included) and id */
  step: number;
  step_id?: string;
  /** JSON pointer into the response body, when the failure is about one member */
  pointer?: string;
  message: string;
}

export interface FixtureResult {
  fixture_id: string;
  profile: string;
  title: string;
  status: FixtureStatus;
  duration_ms: number;
  failures: FixtureFailure[];
  /** why a skipped fixture did not run to the end */
  skip_reason?: string;
}

export interface ProfileSummary {
  profile: string;
  fixtures: number;
  passed: number;
  failed: number;
  skipped: number;
  /** every fixture ran and passed (a profile with no fixture in the run is not conformant) */
  conformant: boolean;
}

export interface ConformanceSummary {
  fixtures: number;
  passed: number;
  failed: number;
  skipped: number;
}

export interface UnsignedConformanceReport {
  schema_version: typeof CONFORMANCE_REPORT_SCHEMA;
  report_id: string;
  kit: { version: string; fixtures: number; digest: string };
  target: { base_url: string; server_version: string | null };
  profiles_requested: string[];
  profiles: ProfileSummary[];
  summary: ConformanceSummary;
  /** no fixture failed and at least one ran */
  passed: boolean;
  /**
   * present (true) only on a run of a preview profile (profiles.ts): the report is about preview operations, may
   * change incompatibly, and earns no certification or listing score. Absent on every other report.
   */
  preview?: true;
  /** present only with `preview`: the preview fixtures installed (the stable kit is `kit`, unchanged) */
  preview_kit?: { version: string; fixtures: number; digest: string };
  started_at: string;
  finished_at: string;
  results: FixtureResult[];
}

export type ConformanceReport = UnsignedConformanceReport & { signature: DocumentSignature };

export function summarizeFixtureResults(results: readonly FixtureResult[]): ConformanceSummary {
  const count = (s: FixtureStatus) => results.filter((r) => r.status === s).length;
  return { fixtures: results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
}

/** One summary per profile that had fixtures in the run, in the profiles' canonical order (the ten, then preview). */
export function summarizeProfiles(results: readonly FixtureResult[]): ProfileSummary[] {
  return KIT_PROFILE_IDS.flatMap((profile) => {
    const mine = results.filter((r) => r.profile === profile);
    if (mine.length === 0) return [];
    const s = summarizeFixtureResults(mine);
    return [{ profile, ...s, conformant: s.passed === s.fixtures }];
  });
}
