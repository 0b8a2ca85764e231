/**
 * The signature base of RFC 9421 section 2.5: one line `"<component>": <value>` per covered component, in the
 * covered order, then `"@signature-params": <inner list with parameters>`, joined by LF, no final LF.
 * INVARIANT: the `@signature-params` line is the canonical RFC 8941 serialization of what was parsed, so the
 * verifier rebuilds it from the parsed Signature-Input and never copies attacker text into the base.
 */
import { AarError } from '../errors/aar-error.ts';
import type { ComponentFailure } from './component-value.ts';
import { componentValue } from './component-value.ts';
import type { SignableRequest } from './http-request.ts';
import { serializeInnerList, serializeString } from './serialize-structured-field.ts';
import type { BareItem, Parameters } from './structured-field-types.ts';

/** The RFC 9421 section 2.3 parameters; serialized in the object's own key order. */
export interface SignatureParams {
  created?: number;
  expires?: number;
  nonce?: string;
  alg?: string;
  keyid?: string;
  tag?: string;
}

export type SignatureBaseFailure = ComponentFailure | 'duplicate_component';

export type SignatureBaseResult = { base: string } | { failure: SignatureBaseFailure; component: string };

const INTEGER_PARAMS: ReadonlySet<string> = new Set(['created', 'expires']);
const STRING_PARAMS: ReadonlySet<string> = new Set(['nonce', 'alg', 'keyid', 'tag']);

/** Typed structured-field parameters from `params`; throws `invalid_request` for unknown names or wrong types. */
export function toStructuredParams(params: SignatureParams): Parameters {
  const out = new Map<string, BareItem>();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (INTEGER_PARAMS.has(name) && Number.isSafeInteger(value) && (value as number) >= 0) {
      out.set(name, { type: 'integer', value: value as number });
    } else if (STRING_PARAMS.has(name) && typeof value === 'string') {
      out.set(name, { type: 'string', value });
    } else {
      throw new AarError('invalid_request', `\`${name}\` is not a signature parameter of the expected type`);
    }
  }
  return out;
}

/** The `@signature-params` value: `("c1" "c2" …);p1=v1;…`. */
export function serializeSignatureParams(components: readonly string[], params: Parameters): string {
  const items = components.map((name) => ({
    kind: 'item' as const,
    value: { type: 'string' as const, value: name },
    params: new Map<string, BareItem>(),
  }));
  return serializeInnerList({ kind: 'inner-list', items, params });
}

/** Builds the base, or names the first component that stops it. Never throws for request contents. */
export function buildSignatureBase(
  components: readonly string[],
  request: SignableRequest,
  params: Parameters,
): SignatureBaseResult {
  const seen = new Set<string>();
  let base = '';
  for (const name of components) {
    if (seen.has(name)) return { failure: 'duplicate_component', component: name };
    seen.add(name);
    const result = componentValue(name, request);
    if ('failure' in result) return { failure: result.failure, component: name };
    base += `${serializeString(name)}: ${result.value}\n`;
  }
  return { base: `${base}"@signature-params": ${serializeSignatureParams(components, params)}` };
}

/**
 * The RFC 9421 signature base of `request` for `components` and `params`. Throws `invalid_request` when a component
 * is unsupported, repeated, absent from the request or has a value that cannot be signed.
 */
export function signatureBase(
  components: readonly string[],
  request: SignableRequest,
  params: SignatureParams,
): string {
  const result = buildSignatureBase(components, request, toStructuredParams(params));
  if ('failure' in result) {
    throw new AarError('invalid_request', `component \`${result.component}\`: ${result.failure.replaceAll('_', ' ')}`);
  }
  return result.base;
}
