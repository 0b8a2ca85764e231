/**
 * RFC 8941 section 4.1 serialization for the subset in parse-structured-field.ts (written by hand for the same
 * reasons). Serialization is canonical, so parse-then-serialize gives the one spelling a signature base uses.
 * Throws `invalid_request` for a value that has no serialization (a string outside printable ASCII, an integer
 * beyond 15 digits): callers on the signing side pass their own values, never an attacker's.
 */
import { AarError } from '../errors/aar-error.ts';
import { encodeBase64 } from '../encoding/base64.ts';
import type { BareItem, Dictionary, InnerList, Item, Parameters } from './structured-field-types.ts';

const MAX_INTEGER = 999_999_999_999_999;
const KEY = /^[a-z*][a-z0-9_\-.*]*$/;
const TOKEN = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*$/;

function refuse(message: string): never {
  throw new AarError('invalid_request', message);
}

export function serializeString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) refuse('a structured field string holds only printable ascii');
    const char = value.charAt(i);
    out += char === '"' || char === '\\' ? `\\${char}` : char;
  }
  return `${out}"`;
}

export function serializeInteger(value: number): string {
  if (!Number.isInteger(value) || Math.abs(value) > MAX_INTEGER)
    refuse(`\`${value}\` is not a structured field integer`);
  return Object.is(value, -0) ? '0' : String(value);
}

function serializeDecimal(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  if (!Number.isFinite(rounded) || Math.abs(Math.trunc(rounded)) >= 1e12) refuse(`\`${value}\` is not a decimal`);
  return Number.isInteger(rounded) ? `${rounded}.0` : String(rounded);
}

export function serializeKey(key: string): string {
  if (!KEY.test(key)) refuse(`\`${key}\` is not a structured field key`);
  return key;
}

export function serializeBareItem(item: BareItem): string {
  switch (item.type) {
    case 'integer':
      return serializeInteger(item.value);
    case 'decimal':
      return serializeDecimal(item.value);
    case 'string':
      return serializeString(item.value);
    case 'token':
      if (!TOKEN.test(item.value)) refuse(`\`${item.value}\` is not a token`);
      return item.value;
    case 'bytes':
      return `:${encodeBase64(item.value)}:`;
    case 'boolean':
      return item.value ? '?1' : '?0';
  }
}

export function serializeParameters(params: Parameters): string {
  let out = '';
  for (const [key, value] of params) {
    out += `;${serializeKey(key)}`;
    if (!(value.type === 'boolean' && value.value)) out += `=${serializeBareItem(value)}`;
  }
  return out;
}

export function serializeItem(item: Item): string {
  return serializeBareItem(item.value) + serializeParameters(item.params);
}

export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(' ')})${serializeParameters(list.params)}`;
}

export function serializeDictionary(dictionary: Dictionary): string {
  const members: string[] = [];
  for (const [key, member] of dictionary) {
    if (member.kind === 'inner-list') {
      members.push(`${serializeKey(key)}=${serializeInnerList(member)}`);
    } else if (member.value.type === 'boolean' && member.value.value) {
      members.push(serializeKey(key) + serializeParameters(member.params));
    } else {
      members.push(`${serializeKey(key)}=${serializeItem(member)}`);
    }
  }
  return members.join(', ');
}
