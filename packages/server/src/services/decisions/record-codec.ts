/**
 * How a decision record is stored (`decisions.record`, migration 0010): one codec byte, then the record's RFC 8785
 * bytes compressed with raw DEFLATE and a preset dictionary. Lossless: the bytes decoded are the bytes the audit
 * entry's `record_digest` hashes, so the verifier hashes them as they are (no parse, no canonicalisation) and every
 * document built from them re-serves byte for byte.
 * Attacker assumption: the blob comes from a database someone may have edited. Decoding fails closed (unknown
 * codec, corrupt stream, more than MAX_RECORD_BYTES out, a policy set text that is not known) with an error, never a
 * partial record.
 */
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { RECORD_DICTIONARY_1 } from './record-dictionary-1.ts';

/**
 * codec 1: raw DEFLATE (RFC 1951), preset dictionary RECORD_DICTIONARY_1. The level is the writer's choice (inflate
 * reads every level): 9 for the usual few-KB record, where it costs what 6 does and saves bytes; 6 for a larger one
 * (level 9 took 0.84 ms on 50 KB against 0.23 ms for level 6, for 3 % fewer bytes).
 */
export const RECORD_CODEC_1 = 1;
/**
 * codec 2 (migration 0022): the record without its policy set's text, which is stored once in `policy_set_texts`:
 * `0x02 || SHA-256 of the policy set text (32 bytes) || byte offset of that text in the record (uint32, big endian)
 * || codec 1's DEFLATE of the record's other bytes`. Decoding puts the text back at the offset, so the bytes are
 * again exactly the record's RFC 8785 bytes.
 */
export const RECORD_CODEC_2 = 2;
const CODEC_2_HEADER = 1 + 32 + 4;
const LARGE_RECORD_BYTES = 8 * 1024;
const DICTIONARY_1 = Buffer.from(RECORD_DICTIONARY_1, 'utf8');

/** far above any record the service writes (a few KB), so a forged blob cannot inflate without bound */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;

/** A policy set text known to be stored (durably) in this store's `policy_set_texts`, with its hex SHA-256. */
export interface StoredPolicySetText {
  digest: string;
  text: string;
}

/** The policy set texts a decoder may put back, by hex SHA-256; each one must hash to its key. */
export type PolicySetTextLookup = (digest: string) => string | undefined;

function deflate(bytes: Buffer): Buffer {
  return deflateRawSync(bytes, {
    level: bytes.length > LARGE_RECORD_BYTES ? constants.Z_DEFAULT_COMPRESSION : constants.Z_BEST_COMPRESSION,
    dictionary: DICTIONARY_1,
  });
}

function inflate(bytes: Buffer): Buffer {
  return inflateRawSync(bytes, { dictionary: DICTIONARY_1, maxOutputLength: MAX_RECORD_BYTES });
}

/** Codec 1: the whole record. */
export function encodeDecisionRecord(canonicalText: string): Buffer {
  return Buffer.concat([Buffer.of(RECORD_CODEC_1), deflate(Buffer.from(canonicalText, 'utf8'))]);
}

/**
 * Codec 2: the record is `before || policySet.text || after` (UTF-8); only `before` and `after` are compressed, and
 * the text is named by its digest.
 */
export function encodeDecisionRecordNaming(before: string, after: string, policySet: StoredPolicySetText): Buffer {
  const head = Buffer.from(before, 'utf8');
  const header = Buffer.alloc(CODEC_2_HEADER);
  header[0] = RECORD_CODEC_2;
  Buffer.from(policySet.digest, 'hex').copy(header, 1);
  header.writeUInt32BE(head.length, 33);
  return Buffer.concat([header, deflate(Buffer.concat([head, Buffer.from(after, 'utf8')]))]);
}

/** The hex SHA-256 of the policy set text a codec 2 record names; undefined for codec 1 (or a blob too short). */
export function policySetDigestOf(blob: Uint8Array | null): string | undefined {
  if (blob === null || blob.length < CODEC_2_HEADER || blob[0] !== RECORD_CODEC_2) return undefined;
  return Buffer.from(blob.buffer, blob.byteOffset + 1, 32).toString('hex');
}

/**
 * The record's text; throws when the blob is not one this service wrote, or names a policy set text `lookup` does
 * not hold (callers preload them: services/decisions/policy-set-texts.ts).
 */
export function decodeDecisionRecord(blob: Uint8Array, lookup?: PolicySetTextLookup): string {
  if (blob.length >= 2 && blob[0] === RECORD_CODEC_1) {
    return inflate(Buffer.from(blob.buffer, blob.byteOffset + 1, blob.length - 1)).toString('utf8');
  }
  if (blob.length > CODEC_2_HEADER && blob[0] === RECORD_CODEC_2) {
    const digest = policySetDigestOf(blob)!;
    const text = lookup?.(digest);
    if (text === undefined) throw new Error(`decision record: policy set text ${digest} is not known`);
    const view = Buffer.from(blob.buffer, blob.byteOffset, blob.length);
    const offset = view.readUInt32BE(33);
    const rest = inflate(view.subarray(CODEC_2_HEADER));
    if (offset > rest.length) throw new Error('decision record: policy set offset out of range');
    const policy = Buffer.from(text, 'utf8');
    if (rest.length + policy.length > MAX_RECORD_BYTES) throw new Error('decision record: too large');
    return Buffer.concat([rest.subarray(0, offset), policy, rest.subarray(offset)]).toString('utf8');
  }
  throw new Error('decision record: unknown codec');
}

/**
 * The record's text with its policy set's text left out (`null` in its place), for readers that scan the words
 * callers wrote (the self-audit's card-number scan reads policy set texts as their own table). Codec 1: the record.
 */
export function decodeDecisionRecordWithoutPolicySet(blob: Uint8Array): string {
  if (blob.length > CODEC_2_HEADER && blob[0] === RECORD_CODEC_2) {
    return decodeDecisionRecord(blob, () => 'null');
  }
  return decodeDecisionRecord(blob);
}
