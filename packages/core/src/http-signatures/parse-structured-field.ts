/**
 * The subset of RFC 8941 (Structured Field Values) that HTTP Message Signatures and Content-Digest need, by hand:
 * dictionaries whose members are items or inner lists, with parameters; bare items of every RFC 8941 type. The
 * `structured-headers` library would serve, but core stays dependency-free for the browser, that library cannot tell
 * the integer `1` from the decimal `1.0`, and this subset is small (one file).
 *
 * Attacker assumption: every character is attacker input. The parser follows RFC 8941 section 4.2 step by step and
 * is stricter in three places, each refusing a second spelling of the same value:
 * - a duplicate dictionary key or parameter key is malformed (RFC 8941 lets the last one win, so two parties could
 *   read one field differently);
 * - byte sequences must be canonical padded base64 (RFC 8941 only says parsers SHOULD NOT fail on missing padding);
 * - RFC 9651 dates (`@`) and display strings (`%`) are not part of the subset and are malformed.
 * It never throws: a malformed field is `undefined`. Work is linear in the input, which is capped.
 */
import { tryDecodeBase64 } from '../encoding/base64.ts';
import type { BareItem, Dictionary, InnerList, Item, Parameters } from './structured-field-types.ts';

/** Far above any honest Signature-Input, Signature or Content-Digest field (Node itself caps headers at 16 KiB). */
export const MAX_STRUCTURED_FIELD_LENGTH = 16_384;

const MAX_INTEGER_DIGITS = 15;
const KEY_FIRST = /^[a-z*]$/;
const KEY_REST = /^[a-z0-9_\-.*]$/;
const TOKEN_FIRST = /^[A-Za-z*]$/;
const TOKEN_REST = /^[A-Za-z0-9!#$%&'*+\-.^_`|~:/]$/;
const DIGIT = /^[0-9]$/;
const BASE64_CHAR = /^[A-Za-z0-9+/=]$/;

class Malformed extends Error {}

function malformed(): never {
  throw new Malformed('malformed structured field');
}

class Reader {
  private pos = 0;

  constructor(private readonly input: string) {}

  get done(): boolean {
    return this.pos >= this.input.length;
  }

  peek(): string {
    return this.input.charAt(this.pos);
  }

  next(): string {
    if (this.done) malformed();
    return this.input.charAt(this.pos++);
  }

  skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  /** OWS: spaces and horizontal tabs, allowed only around dictionary commas. */
  skipOptionalWhitespace(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  dictionary(): Dictionary {
    const members = new Map<string, Item | InnerList>();
    while (!this.done) {
      const key = this.key();
      let member: Item | InnerList;
      if (this.peek() === '=') {
        this.pos++;
        member = this.itemOrInnerList();
      } else {
        member = { kind: 'item', value: { type: 'boolean', value: true }, params: this.parameters() };
      }
      if (members.has(key)) malformed();
      members.set(key, member);
      this.skipOptionalWhitespace();
      if (this.done) return members;
      if (this.next() !== ',') malformed();
      this.skipOptionalWhitespace();
      if (this.done) malformed();
    }
    return members;
  }

  itemOrInnerList(): Item | InnerList {
    return this.peek() === '(' ? this.innerList() : this.item();
  }

  innerList(): InnerList {
    this.next();
    const items: Item[] = [];
    while (!this.done) {
      this.skipSpaces();
      if (this.peek() === ')') {
        this.pos++;
        return { kind: 'inner-list', items, params: this.parameters() };
      }
      items.push(this.item());
      const after = this.peek();
      if (after !== ' ' && after !== ')') malformed();
    }
    return malformed();
  }

  item(): Item {
    const value = this.bareItem();
    return { kind: 'item', value, params: this.parameters() };
  }

  parameters(): Parameters {
    const params = new Map<string, BareItem>();
    while (this.peek() === ';') {
      this.pos++;
      this.skipSpaces();
      const key = this.key();
      let value: BareItem = { type: 'boolean', value: true };
      if (this.peek() === '=') {
        this.pos++;
        value = this.bareItem();
      }
      if (params.has(key)) malformed();
      params.set(key, value);
    }
    return params;
  }

  key(): string {
    if (!KEY_FIRST.test(this.peek())) malformed();
    let key = this.next();
    while (KEY_REST.test(this.peek())) key += this.next();
    return key;
  }

  bareItem(): BareItem {
    const first = this.peek();
    if (first === '-' || DIGIT.test(first)) return this.number();
    if (first === '"') return { type: 'string', value: this.string() };
    if (first === ':') return { type: 'bytes', value: this.byteSequence() };
    if (first === '?') return { type: 'boolean', value: this.boolean() };
    if (TOKEN_FIRST.test(first)) return { type: 'token', value: this.token() };
    return malformed();
  }

  number(): BareItem {
    let negative = false;
    if (this.peek() === '-') {
      this.pos++;
      negative = true;
    }
    if (!DIGIT.test(this.peek())) malformed();
    let digits = '';
    let decimal = false;
    for (;;) {
      const char = this.peek();
      if (DIGIT.test(char)) {
        digits += this.next();
      } else if (!decimal && char === '.') {
        if (digits.length > 12) malformed();
        digits += this.next();
        decimal = true;
      } else {
        break;
      }
      if (!decimal && digits.length > MAX_INTEGER_DIGITS) malformed();
      if (decimal && digits.length > 16) malformed();
    }
    if (!decimal) {
      const value = Number(digits);
      return { type: 'integer', value: negative ? -value : value };
    }
    const fraction = digits.length - digits.indexOf('.') - 1;
    if (fraction < 1 || fraction > 3) malformed();
    const value = Number(digits);
    return { type: 'decimal', value: negative ? -value : value };
  }

  string(): string {
    this.next();
    let out = '';
    for (;;) {
      const char = this.next();
      if (char === '\\') {
        const escaped = this.next();
        if (escaped !== '"' && escaped !== '\\') malformed();
        out += escaped;
      } else if (char === '"') {
        return out;
      } else {
        const code = char.charCodeAt(0);
        if (code < 0x20 || code > 0x7e) malformed();
        out += char;
      }
    }
  }

  token(): string {
    let token = this.next();
    while (TOKEN_REST.test(this.peek())) token += this.next();
    return token;
  }

  byteSequence(): Uint8Array {
    this.next();
    let text = '';
    for (;;) {
      const char = this.next();
      if (char === ':') break;
      if (!BASE64_CHAR.test(char)) malformed();
      text += char;
    }
    return tryDecodeBase64(text) ?? malformed();
  }

  boolean(): boolean {
    this.next();
    const char = this.next();
    if (char === '1') return true;
    if (char === '0') return false;
    return malformed();
  }
}

/**
 * Parses a dictionary field (RFC 8941 section 4.2 with `field_type` dictionary). Several field lines must be joined
 * with `, ` first, as RFC 8941 section 4.2 says. An empty field is an empty dictionary. Never throws.
 */
export function parseDictionary(field: unknown): Dictionary | undefined {
  if (typeof field !== 'string' || field.length > MAX_STRUCTURED_FIELD_LENGTH) return undefined;
  const reader = new Reader(field);
  try {
    reader.skipSpaces();
    const dictionary = reader.dictionary();
    reader.skipSpaces();
    return reader.done ? dictionary : undefined;
  } catch (error) {
    if (error instanceof Malformed) return undefined;
    throw error;
  }
}
