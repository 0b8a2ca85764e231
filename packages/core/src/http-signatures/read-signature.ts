/**
 * Reads one signature out of the parsed Signature-Input and Signature dictionaries and checks its shape: one label
 * present in both, covered components that include every required one, and well-typed parameters. No crypto and
 * no clock here. Attacker assumption: both dictionaries are attacker-chosen; nothing is trusted until the
 * signature over them verifies.
 */
import type { RequestSignatureFailure, RequestSignatureResult } from './request-signature-result.ts';
import type { BareItem, Dictionary } from './structured-field-types.ts';

/** Longer nonces are refused: the server stores every nonce it accepts. */
export const MAX_NONCE_LENGTH = 256;

const KNOWN_PARAMS: ReadonlySet<string> = new Set(['created', 'expires', 'nonce', 'alg', 'keyid', 'tag']);

function isTimestamp(item: BareItem | undefined): item is { type: 'integer'; value: number } {
  return item?.type === 'integer' && item.value >= 0 && !Object.is(item.value, -0);
}

export interface ParsedSignature {
  label: string;
  components: string[];
  params: ReadonlyMap<string, BareItem>;
  created: number;
  expires?: number;
  nonce: string;
  keyid: string;
  signature: Uint8Array;
}

export type Step<T> = { ok: true; value: T } | { ok: false; result: RequestSignatureResult };

function refuse(failure: RequestSignatureFailure, known: Partial<RequestSignatureResult> = {}): Step<never> {
  return { ok: false, result: { ...known, status: 'invalid', failure } };
}

/** The single label present in both fields, or why there is none. */
function pickLabel(inputs: Dictionary, signatures: Dictionary): Step<string> {
  for (const label of inputs.keys()) if (!signatures.has(label)) return refuse('label_mismatch', { label });
  for (const label of signatures.keys()) if (!inputs.has(label)) return refuse('label_mismatch', { label });
  // Several signatures (a proxy adding its own, say) would need a rule to choose one: agents send exactly one.
  if (inputs.size > 1) return refuse('multiple_signatures');
  const label = inputs.keys().next().value;
  return label === undefined
    ? { ok: false, result: { status: 'missing', failure: 'missing_signature' } }
    : { ok: true, value: label };
}

export function readSignature(
  inputs: Dictionary,
  signatures: Dictionary,
  required: readonly string[],
): Step<ParsedSignature> {
  const picked = pickLabel(inputs, signatures);
  if (!picked.ok) return picked;
  const label = picked.value;
  const input = inputs.get(label);
  if (input === undefined || input.kind !== 'inner-list') return refuse('malformed_signature_input', { label });
  const components: string[] = [];
  for (const item of input.items) {
    // Component parameters (`;sf`, `;key`, `;req`…) change what a component means; none is supported.
    if (item.value.type !== 'string' || item.params.size !== 0) return refuse('malformed_signature_input', { label });
    components.push(item.value.value);
  }
  const known: Partial<RequestSignatureResult> = { label, components };
  const missing = required.find((name) => !components.includes(name));
  if (missing !== undefined) return refuse('missing_component', { ...known, component: missing });

  const params = input.params;
  for (const name of params.keys()) if (!KNOWN_PARAMS.has(name)) return refuse('unsupported_parameter', known);
  const keyidItem = params.get('keyid');
  if (keyidItem === undefined) return refuse('missing_keyid', known);
  if (keyidItem.type !== 'string' || keyidItem.value.length === 0) return refuse('invalid_keyid', known);
  known.keyid = keyidItem.value;
  const alg = params.get('alg');
  if (alg !== undefined && !(alg.type === 'string' && alg.value === 'ed25519')) return refuse('alg_mismatch', known);
  const created = params.get('created');
  if (created === undefined) return refuse('missing_created', known);
  if (!isTimestamp(created)) return refuse('invalid_created', known);
  known.created = created.value;
  const expires = params.get('expires');
  if (expires !== undefined && !isTimestamp(expires)) return refuse('invalid_expires', known);
  const nonce = params.get('nonce');
  if (nonce === undefined) return refuse('missing_nonce', known);
  if (nonce.type !== 'string' || nonce.value.length === 0 || nonce.value.length > MAX_NONCE_LENGTH) {
    return refuse('invalid_nonce', known);
  }
  known.nonce = nonce.value;
  const tag = params.get('tag');
  if (tag !== undefined && tag.type !== 'string') return refuse('unsupported_parameter', known);

  const signature = signatures.get(label);
  if (signature === undefined || signature.kind !== 'item' || signature.params.size !== 0) {
    return refuse('malformed_signature', known);
  }
  if (signature.value.type !== 'bytes' || signature.value.value.length !== 64)
    return refuse('malformed_signature', known);
  return {
    ok: true,
    value: {
      label,
      components,
      params,
      created: created.value,
      ...(expires === undefined ? {} : { expires: expires.value }),
      nonce: nonce.value,
      keyid: keyidItem.value,
      signature: signature.value.value,
    },
  };
}
