/**
 * Reads one input file (a pack, a bundle, a chain, a JWKS) as strict JSON: UTF-8 decoded fatally, duplicate keys,
 * inexact numbers and prototype keys refused (core's parser, the one the service runs on request bodies).
 * Attacker assumption: the file is hostile (it is what is being audited); it may be large or deeply nested, and the
 * parser refuses both without recursing. `-` is standard input.
 */
import { readFileSync } from 'node:fs';
import { parseStrictJsonBytes } from '@aar/core';

/** A file could not be read at all (exit 2), as opposed to read and found not to be evidence (exit 1). */
export class UnreadableInput extends Error {}

export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export function readBytes(file: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (error) {
    throw new UnreadableInput(`cannot read \`${file}\`: ${(error as Error).message}`);
  }
  if (bytes.length > MAX_INPUT_BYTES) throw new UnreadableInput(`\`${file}\` is larger than 64 MiB`);
  return bytes;
}

export type ParsedInput = { ok: true; value: unknown } | { ok: false; reason: string };

/** The file's JSON value, or why it is not strict JSON (a verdict on the file, not an I/O error). */
export function readJsonFile(file: string): ParsedInput {
  const bytes = readBytes(file);
  try {
    return { ok: true, value: parseStrictJsonBytes(bytes) };
  } catch (error) {
    return { ok: false, reason: `not strict JSON: ${(error as Error).message}` };
  }
}
