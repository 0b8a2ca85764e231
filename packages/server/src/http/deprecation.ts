/**
 * Deprecation on the wire (docs/versioning.md, "Deprecation on the wire"): every answer to a deprecated form carries
 * - `Deprecation: @<unix seconds>` (RFC 9745: a Structured Field Date, the moment the form was deprecated),
 * - `Sunset: <HTTP-date>` (RFC 8594: the earliest moment it may stop working: a deprecated form goes only with a
 *   major release, and majors are at least 12 months apart, so no earlier than 12 months after its deprecation),
 * - `Link: <…/docs/versioning.md#deprecated-forms>; rel="deprecation"` (RFC 9745 section 3: where it is explained).
 * The OpenAPI document marks the same form `deprecated: true`. INVARIANT: only the deprecated form's answers carry
 * these headers, so a client that logs them learns exactly which of its calls to change.
 */
import type { FastifyReply } from 'fastify';

/** Where docs/versioning.md is published (the repository the Go module path names). */
export const VERSIONING_DOC_URL = 'https://github.com/aar-project/aar/blob/main/docs/versioning.md#deprecated-forms';

export interface DeprecatedForm {
  /** when it was deprecated */
  since: Date;
  /** the earliest time it may stop working */
  sunset: Date;
}

/** Release 1.0.0 (2026-11-28): what it deprecated may go with 2.0.0, no earlier than 12 months later. */
export const DEPRECATED_IN_1_0_0: DeprecatedForm = {
  since: new Date('2026-11-28T00:00:00Z'),
  sunset: new Date('2027-11-28T00:00:00Z'),
};

/** The three headers of a deprecated form's answer. */
export function deprecationHeaders(form: DeprecatedForm): Record<'deprecation' | 'sunset' | 'link', string> {
  return {
    deprecation: `@${Math.floor(form.since.getTime() / 1000)}`,
    sunset: form.sunset.toUTCString(),
    link: `<${VERSIONING_DOC_URL}>; rel="deprecation"; type="text/markdown"`,
  };
}

export function markDeprecated(reply: FastifyReply, form: DeprecatedForm): void {
  for (const [name, value] of Object.entries(deprecationHeaders(form))) reply.header(name, value);
}
