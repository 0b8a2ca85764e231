/**
 * A refused policy document as RFC 9457 problem+json (docs/errors.md): every problem with its RFC 6901 pointer into
 * the document (which is the request body of `POST /v1/rule-packs` and `POST /v1/dictionaries`, so the pointers name
 * request fields). A reference to a dictionary or pack that does not exist is 422 `reference_not_found`; any other
 * problem (outside the profile, too large or deep, an undeclared reason, an unknown obligation type, stop condition
 * or taxonomy term, a cycle) is 400 `invalid_request`.
 */
import { AarError, type RuleProblem } from '@aar/core';

const UNKNOWN_REFERENCE = /^unknown (dictionary|rule pack) /;

export function documentRefused(what: string, problems: readonly RuleProblem[], pointerPrefix = ''): AarError {
  const onlyReferences = problems.every((p) => UNKNOWN_REFERENCE.test(p.message));
  const first = problems[0]!;
  return new AarError(
    onlyReferences ? 'reference_not_found' : 'invalid_request',
    `${what} refused: ${pointerPrefix}${first.pointer || '/'}: ${first.message}` +
      (problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''),
    { errors: problems.map((p) => ({ path: `${pointerPrefix}${p.pointer}`, message: p.message })) },
  );
}
