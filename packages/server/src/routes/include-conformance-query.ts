/**
 * The `include_conformance` query member of the list endpoints (and marketplace search): by default they leave out
 * what conformance-kit runs created (services/conformance/run-artifacts.ts); `true` lists it too.
 */
import { Type } from 'typebox';

export const includeConformanceProperty = {
  include_conformance: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'also list what conformance-kit runs created (left out by default; docs/conformance.md)',
    }),
  ),
};
