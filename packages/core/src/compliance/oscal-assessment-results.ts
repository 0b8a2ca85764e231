/**
 * A compliance projection as an OSCAL 1.1 `assessment-results` document (NIST OSCAL Assessment Results model,
 * version 1.1.2; the JSON Schema is in ../shared/vectors/oscal/). One result; one observation per control that has evidence
 * (its `relevant-evidence` links each pointer as `<issuer>/v1/evidence-packs/<id>#<RFC 6901 pointer>`, the RFC 6901
 * fragment form); one finding per assessed control. OSCAL knows only `satisfied` / `not-satisfied`:
 * - satisfied -> satisfied (reason `pass`); gap -> not-satisfied (`fail`);
 * - partially_satisfied -> not-satisfied (`other`), never `satisfied`: OSCAL readers must not count it as met;
 * - not_applicable -> no finding: the control is listed under `exclude-controls`, with the reason in remarks.
 * Our own status rides along as the property `aar-status` (namespace `OSCAL_PROPERTY_NS`).
 * UUIDs are name-based (version 5) from the projection id, so the same projection always exports the same bytes.
 * The signed projection itself travels in `back-matter` (base64 of its RFC 8785 bytes): the OSCAL document is a
 * view, the embedded projection is what verifies against the JWKS.
 */
import { encodeBase64 } from '../encoding/base64.ts';
import { canonicalBytes } from '../json/canonical-json.ts';
import type { ComplianceProjection, ControlProjection, ControlStatus } from './compliance-projection.ts';
import { nameBasedUuid } from './name-based-uuid.ts';

export const OSCAL_VERSION = '1.1.2';
export const OSCAL_PROPERTY_NS = 'urn:aar:oscal';

export interface OscalExportOptions {
  /** the rule pack's title, for the document title */
  frameworkTitle: string;
  /** where `GET /v1/evidence-packs/{id}` and `GET /v1/compliance/frameworks/{framework}` answer */
  baseUrl: string;
}

/** An OSCAL token (an XML NCName): `CC6.1` -> `cc6.1`, `Art. 12(1)` -> `art-12-1`, `GOVERN 1.1` -> `govern-1.1`. */
export function oscalControlId(controlId: string): string {
  const token = controlId
    .toLowerCase()
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return /^[\p{L}_]/u.test(token) ? token : `_${token}`;
}

const STATE: Record<Exclude<ControlStatus, 'not_applicable'>, { state: string; reason: string }> = {
  satisfied: { state: 'satisfied', reason: 'pass' },
  partially_satisfied: { state: 'not-satisfied', reason: 'other' },
  gap: { state: 'not-satisfied', reason: 'fail' },
};

const prop = (name: string, value: string) => ({ name, ns: OSCAL_PROPERTY_NS, value });

/** OSCAL strings may not be empty or start or end with white space. */
const text = (value: string): string => value.trim() || '-';

function evidenceHref(base: string, packId: string, pointer: string): string {
  // RFC 6901 section 6: a pointer in a URI fragment is percent-encoded beyond the fragment's own characters
  const fragment = encodeURI(pointer).replaceAll('#', '%23');
  return `${base}/v1/evidence-packs/${encodeURIComponent(packId)}#${fragment}`;
}

function observationOf(p: ComplianceProjection, c: ControlProjection, base: string) {
  return {
    uuid: nameBasedUuid(`${p.projection_id}#observation/${c.control_id}`),
    title: text(`${c.control_id}: evidence`),
    description: text(
      `${c.packs.satisfying} of ${c.packs.applicable} applicable evidence packs hold the evidence for ${c.control_id}.`,
    ),
    methods: ['TEST'],
    types: ['control-objective'],
    'relevant-evidence': c.evidence.map((e) => ({
      href: evidenceHref(base, e.evidence_pack_id, e.pointer),
      description: text(e.note),
      props: [prop('evidence-pack-id', e.evidence_pack_id), prop('json-pointer', e.pointer || '/')],
    })),
    collected: p.generated_at,
  };
}

function findingOf(p: ComplianceProjection, c: ControlProjection & { status: keyof typeof STATE }, observed: boolean) {
  const { state, reason } = STATE[c.status];
  return {
    uuid: nameBasedUuid(`${p.projection_id}#finding/${c.control_id}`),
    title: text(`${c.control_id} ${c.title}`),
    description: text(c.reason ?? `${c.control_id} is satisfied by every applicable evidence pack.`),
    props: [prop('aar-status', c.status), prop('control-id-as-published', c.control_id)],
    target: {
      type: 'objective-id',
      'target-id': oscalControlId(c.control_id),
      status: { state, reason, ...(c.reason ? { remarks: text(c.reason) } : {}) },
    },
    ...(observed
      ? {
          'related-observations': [
            { 'observation-uuid': nameBasedUuid(`${p.projection_id}#observation/${c.control_id}`) },
          ],
        }
      : {}),
  };
}

/** The OSCAL `assessment-results` document (the object under its root key, `assessment-results`). */
export function toOscalAssessmentResults(p: ComplianceProjection, options: OscalExportOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const assessed = p.controls.filter((c) => c.status !== 'not_applicable') as Array<
    ControlProjection & { status: keyof typeof STATE }
  >;
  const excluded = p.controls.filter((c) => c.status === 'not_applicable');
  const withEvidence = assessed.filter((c) => c.evidence.length > 0);
  const selection = {
    description: text(`Controls of rule pack ${p.rule_pack.rule_pack_id} version ${p.rule_pack.version}.`),
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
  const start = p.selection.from ?? p.generated_at;
  const end = p.selection.to ?? p.generated_at;
  return {
    'assessment-results': {
      uuid: nameBasedUuid(p.projection_id),
      metadata: {
        title: text(`${options.frameworkTitle}: compliance projection ${p.projection_id}`),
        'last-modified': p.generated_at,
        version: p.rule_pack.version,
        'oscal-version': OSCAL_VERSION,
        props: [prop('projection-id', p.projection_id), prop('rule-pack-digest', p.rule_pack.digest)],
      },
      'import-ap': {
        href: `${base}/v1/compliance/frameworks/${encodeURIComponent(p.framework)}`,
        remarks: 'No separate assessment plan: the rule pack served here is the plan.',
      },
      results: [
        {
          uuid: nameBasedUuid(`${p.projection_id}#result`),
          title: text(`Projection of ${p.evidence_pack_ids.length} evidence packs onto ${p.framework}`),
          description: text(
            `Signed projection ${p.projection_id}: ${p.summary.satisfied} satisfied, ` +
              `${p.summary.partially_satisfied} partially satisfied, ${p.summary.not_applicable} not applicable, ` +
              `${p.summary.gap} gaps.`,
          ),
          start: start < end ? start : end,
          end,
          'reviewed-controls': { 'control-selections': [selection] },
          ...(withEvidence.length ? { observations: withEvidence.map((c) => observationOf(p, c, base)) } : {}),
          ...(assessed.length ? { findings: assessed.map((c) => findingOf(p, c, c.evidence.length > 0)) } : {}),
        },
      ],
      'back-matter': {
        resources: [
          {
            uuid: nameBasedUuid(`${p.projection_id}#signed-projection`),
            title: 'The signed ns.compliance_projection.v1 this document was exported from',
            props: [prop('projection-id', p.projection_id)],
            base64: {
              filename: 'compliance-projection.json',
              'media-type': 'application/json',
              value: encodeBase64(canonicalBytes(p)),
            },
          },
        ],
      },
    },
  };
}
