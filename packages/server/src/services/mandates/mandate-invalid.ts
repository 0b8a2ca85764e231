/**
 * 422 `mandate_invalid` (CONTRACT section 21): a refused mandate or allowance, every fault named at once as
 * `{ path, code, detail }` (path: a JSON pointer into the request body, e.g. `/presentation/hops/1/payload/aud`;
 * code: core's MandateErrorCode). The problem document carries them in `errors`, each also with `message` =
 * `detail` like every other refusal's items. A detail never echoes a disclosure value or key.
 */
import { AarError, type MandateError } from '@aar/core';

export function mandateInvalid(errors: readonly MandateError[], what = 'the mandate'): AarError {
  const list = errors.length > 0 ? errors : [{ path: '', code: 'schema_invalid' as const, detail: 'refused' }];
  return new AarError(
    'mandate_invalid',
    `${what} is refused: ${list.map((e) => `${e.path || 'body'} ${e.code}`).join(', ')}`,
    {
      errors: list.map((e) => ({ path: e.path, message: e.detail, code: e.code, detail: e.detail })),
    },
  );
}
