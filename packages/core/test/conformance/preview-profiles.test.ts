/**
 * The preview conformance profile in core: the ten stay the ten (listings, scores and default runs read them), a
 * fixture may name the preview profile, report summaries put it after the ten, and `document_signature` is parsed.
 */
import { describe, expect, it } from 'vitest';
import {
  CONFORMANCE_PREVIEW_PROFILE_IDS,
  CONFORMANCE_PROFILE_IDS,
  isConformanceProfile,
  isKitProfile,
  isPreviewConformanceProfile,
  parseFixture,
  summarizeProfiles,
  type FixtureResult,
} from '../../src/index.ts';

const fixture = (extra: Record<string, unknown> = {}, request: Record<string, unknown> = {}) => ({
  fixture_id: 'preview.example',
  profile: 'ns.preview.v1_1',
  title: 'example',
  steps: [{ request: { method: 'POST', path: '/v1/x', body: {}, ...request } }],
  ...extra,
});

describe('preview profiles', () => {
  it('are not among the ten', () => {
    expect(CONFORMANCE_PROFILE_IDS).toHaveLength(10);
    expect(CONFORMANCE_PREVIEW_PROFILE_IDS).toEqual(['ns.preview.v1_1']);
    expect(isConformanceProfile('ns.preview.v1_1')).toBe(false);
    expect(isPreviewConformanceProfile('ns.preview.v1_1')).toBe(true);
    expect(isPreviewConformanceProfile('ns.core.v1')).toBe(false);
    expect(isKitProfile('ns.preview.v1_1') && isKitProfile('ns.core.v1')).toBe(true);
    expect(isKitProfile('ns.preview.v9')).toBe(false);
  });

  it('a fixture may name one; an unknown profile is still refused', () => {
    expect(parseFixture(fixture()).profile).toBe('ns.preview.v1_1');
    expect(() => parseFixture(fixture({ profile: 'ns.preview.v9' }))).toThrow(/\/profile/);
  });

  it('summaries list the preview profile after the ten', () => {
    const result = (profile: string): FixtureResult => ({
      fixture_id: `f.${profile}`,
      profile,
      title: 't',
      status: 'passed',
      duration_ms: 1,
      failures: [],
    });
    const profiles = summarizeProfiles([result('ns.preview.v1_1'), result('ns.marketplace.v1')]);
    expect(profiles.map((p) => p.profile)).toEqual(['ns.marketplace.v1', 'ns.preview.v1_1']);
  });

  it('parses document_signature, with or without member, and refuses a malformed one', () => {
    const doc = { key: 'agent', keyid: 'ns:entity:agent:a', document: { a: 1 } };
    expect(parseFixture(fixture({}, { document_signature: doc })).steps[0]!.request.document_signature).toEqual(doc);
    expect(() => parseFixture(fixture({}, { document_signature: { ...doc, member: 'signature' } }))).not.toThrow();
    expect(() => parseFixture(fixture({}, { document_signature: { ...doc, key: undefined } }))).toThrow(
      /document_signature/,
    );
    expect(() => parseFixture(fixture({}, { document_signature: { ...doc, document: 'x' } }))).toThrow(/document/);
    expect(() => parseFixture(fixture({}, { document_signature: { ...doc, extra: 1 } }))).toThrow(/extra/);
    expect(() => parseFixture(fixture({}, { body: undefined, document_signature: doc }))).toThrow(/body/);
  });
});
