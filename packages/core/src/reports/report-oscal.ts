/**
 * One framework's coverage of a compliance report as an OSCAL 1.1 `assessment-results` document, mapped as
 * oscal-assessment-results.ts maps a projection (so a reader of one reads the other):
 * - satisfied -> satisfied (`pass`); gap -> not-satisfied (`fail`); partially_satisfied -> not-satisfied (`other`),
 *   never `satisfied`; not_applicable -> no finding, the control under `exclude-controls` with the reason in remarks.
 * - our status rides along as the property `aar-status`; the result's start and end are the report's period.
 * - a report keeps pack counts, not evidence pointers: each observation says how many of the period's applicable
 *   packs held the evidence and links the report itself (`<issuer>/v1/reports/<id>`).
 * UUIDs are name-based (version 5) from the report id and framework: the same report exports the same bytes.
 * The signed report travels in `back-matter` (base64 of its RFC 8785 bytes): it is what verifies against the JWKS.
 */
import { encodeBase64 } from '../encoding/base64.ts';
import { canonicalBytes } from '../json/canonical-json.ts';
import type { ControlStatus } from '../compliance/compliance-projection.ts';
import { nameBasedUuid } from '../compliance/name-based-uuid.ts';
import { OSCAL_PROPERTY_NS, OSCAL_VERSION, oscalControlId } from '../compliance/oscal-assessment-results.ts';
import type { ComplianceReport, ControlCoverage, FrameworkCoverage } from './compliance-report.ts';

export interface ReportOscalOptions {
  /** the rule pack's title */
  frameworkTitle: string;
  /** where `GET /v1/reports/{id}` and `GET /v1/compliance/frameworks/{framework}` answer (the issuer URL) */
  baseUrl: string;
}

type Assessed = ControlCoverage & { status: Exclude<ControlStatus, 'not_applicable'> };

const STATE: Record<Assessed['status'], { state: string; reason: string }> = {
  satisfied: { state: 'satisfied', reason: 'pass' },
  partially_satisfied: { state: 'not-satisfied', reason: 'other' },
  gap: { state: 'not-satisfied', reason: 'fail' },
};

const prop = (name: string, value: string) => ({ name, ns: OSCAL_PROPERTY_NS, value });
/** OSCAL strings may not be empty or start or end with white space. */
const text = (value: string): string => value.trim() || '-';

/** The OSCAL `assessment-results` document of `coverage` (one entry of `report.coverage`). */
export function reportToOscal(report: ComplianceReport, coverage: FrameworkCoverage, options: ReportOscalOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const seed = `${report.report_id}#${coverage.framework}`;
  const reportHref = `${base}/v1/reports/${encodeURIComponent(report.report_id)}`;
  const assessed = coverage.controls.filter((c): c is Assessed => c.status !== 'not_applicable');
  const excluded = coverage.controls.filter((c) => c.status === 'not_applicable');
  const observed = assessed.filter((c) => c.packs.applicable > 0);
  const observationUuid = (c: ControlCoverage) => nameBasedUuid(`${seed}#observation/${c.control_id}`);
  const selection = {
    description: text(
      `Controls of rule pack ${coverage.rule_pack.rule_pack_id} version ${coverage.rule_pack.version}.`,
    ),
    ...(assessed.length
      ? { 'include-controls': assessed.map((c) => ({ 'control-id': oscalControlId(c.control_id) })) }
      : {}),
    ...(excluded.length
      ? { 'exclude-controls': excluded.map((c) => ({ 'control-id': oscalControlId(c.control_id) })) }
      : {}),
    ...(excluded.length
      ? { remarks: excluded.map((c) => `${c.control_id} not applicable: ${c.reason ?? ''}`.trim()).join('\n') }
      : {}),
  };
  const observations = observed.map((c) => ({
    uuid: observationUuid(c),
    title: text(`${c.control_id}: evidence in the period`),
    description: text(
      `${c.packs.satisfying} of ${c.packs.applicable} applicable evidence packs of the period hold the evidence ` +
        `for ${c.control_id}.`,
    ),
    methods: ['TEST'],
    types: ['control-objective'],
    'relevant-evidence': [
      {
        href: reportHref,
        description: text(`The signed compliance report ${report.report_id}, coverage of ${coverage.framework}.`),
      },
    ],
    collected: report.generated_at,
  }));
  const findings = assessed.map((c) => {
    const { state, reason } = STATE[c.status];
    return {
      uuid: nameBasedUuid(`${seed}#finding/${c.control_id}`),
      title: text(`${c.control_id} ${c.title}`),
      description: text(c.reason ?? `${c.control_id} is satisfied by every applicable evidence pack of the period.`),
      props: [prop('aar-status', c.status), prop('control-id-as-published', c.control_id)],
      target: {
        type: 'objective-id',
        'target-id': oscalControlId(c.control_id),
        status: { state, reason, ...(c.reason ? { remarks: text(c.reason) } : {}) },
      },
      ...(c.packs.applicable > 0 ? { 'related-observations': [{ 'observation-uuid': observationUuid(c) }] } : {}),
    };
  });
  const s = coverage.summary;
  return {
    'assessment-results': {
      uuid: nameBasedUuid(seed),
      metadata: {
        title: text(`${options.frameworkTitle}: compliance report ${report.report_id}`),
        'last-modified': report.generated_at,
        version: coverage.rule_pack.version,
        'oscal-version': OSCAL_VERSION,
        props: [
          prop('report-id', report.report_id),
          prop('rule-pack-digest', coverage.rule_pack.digest),
          prop('period-start', report.period.start),
          prop('period-end', report.period.end),
        ],
      },
      'import-ap': {
        href: `${base}/v1/compliance/frameworks/${encodeURIComponent(coverage.framework)}`,
        remarks: 'No separate assessment plan: the rule pack served here is the plan.',
      },
      results: [
        {
          uuid: nameBasedUuid(`${seed}#result`),
          title: text(
            `Coverage of ${coverage.framework} by ${coverage.evidence_packs.projected} of the ` +
              `${coverage.evidence_packs.in_period} evidence packs of the period`,
          ),
          description: text(
            `Signed compliance report ${report.report_id} for ${report.period.start} to ${report.period.end}: ` +
              `${s.satisfied} satisfied, ${s.partially_satisfied} partially satisfied, ${s.not_applicable} not ` +
              `applicable, ${s.gap} gaps.`,
          ),
          start: report.period.start,
          end: report.period.end,
          'reviewed-controls': { 'control-selections': [selection] },
          ...(observations.length ? { observations } : {}),
          ...(findings.length ? { findings } : {}),
        },
      ],
      'back-matter': {
        resources: [
          {
            uuid: nameBasedUuid(`${seed}#signed-report`),
            title: 'The signed ns.compliance_report.v1 this document was exported from',
            props: [prop('report-id', report.report_id)],
            base64: {
              filename: 'compliance-report.json',
              'media-type': 'application/json',
              value: encodeBase64(canonicalBytes(report)),
            },
          },
        ],
      },
    },
  };
}
