import { fieldError } from '../errors/aar-error.ts';
import { tryUtf8Decode } from '../encoding/utf8.ts';
import type { StrictJsonOptions } from './parse-strict-json.ts';
import { parseStrictJson } from './parse-strict-json.ts';

/** Decodes a body as strict UTF-8 (fatal decoder, BOM kept and then refused) and parses it as strict JSON. */
export function parseStrictJsonBytes(bytes: Uint8Array, options: StrictJsonOptions = {}): unknown {
  const text = tryUtf8Decode(bytes);
  if (text === undefined) throw fieldError('invalid_json', '', 'body is not valid utf-8');
  return parseStrictJson(text, options);
}
