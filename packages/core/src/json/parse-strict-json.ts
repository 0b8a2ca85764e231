/**
 * A strict RFC 8259 parser, written by hand because `JSON.parse` cannot be made strict: it silently keeps the last of
 * duplicate keys (`{"amount":1,"amount":1000}`), rounds numbers it cannot hold exactly (2^53 + 1, 0.1000000000000000055),
 * turns 1e400 into Infinity, accepts lone surrogates and recurses without bound.
 * Attacker assumption: `text` is a request body of up to the body limit, chosen to confuse the parser or a later reader.
 * The parser is iterative (explicit stack), so depth costs heap, never the call stack, and is refused at `maxDepth`.
 * Error messages never echo number literals: a refused number may be a card number.
 * Invalid UTF-8 is the byte layer's job: decode with a fatal decoder first (see `parseStrictJsonBytes`).
 */
import { fieldError } from '../errors/aar-error.ts';
import { decimalParts } from './decimal-parts.ts';
import { appendPointer } from './json-pointer.ts';

export interface StrictJsonOptions {
  /** deepest allowed nesting of objects and arrays; default 64 */
  maxDepth?: number;
}

export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Keys that reach object prototypes in JavaScript consumers (prototype pollution). */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Numbers beyond these lose precision in IEEE 754 doubles (every JSON number becomes one). */
const MAX_NON_INTEGER_DIGITS = 15;

const NUMBER_PATTERN = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

interface ObjectFrame {
  kind: 'object';
  value: Record<string, unknown>;
  path: string;
  key: string;
}
interface ArrayFrame {
  kind: 'array';
  value: unknown[];
  path: string;
}
type Frame = ObjectFrame | ArrayFrame;

/** Parses one strict JSON text; throws `invalid_json` with the pointer of the failing place. */
export function parseStrictJson(text: string, options: StrictJsonOptions = {}): unknown {
  return new StrictJsonParser(text, options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH).parse();
}

class StrictJsonParser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  parse(): unknown {
    if (this.text.charCodeAt(0) === 0xfeff) this.fail('', 'a byte order mark is not allowed');
    const stack: Frame[] = [];
    let path = '';
    for (;;) {
      let value = this.parseScalarOrOpen(stack, path);
      if (value === OPENED) {
        const frame = stack.at(-1) as Frame;
        path = frame.kind === 'object' ? appendPointer(frame.path, frame.key) : appendPointer(frame.path, 0);
        continue;
      }
      // A complete value: attach it to its parents, closing every container that ends here.
      for (;;) {
        const frame = stack.at(-1);
        if (frame === undefined) {
          this.skipWhitespace();
          if (this.pos < this.text.length) this.fail('', `unexpected data after the json value at offset ${this.pos}`);
          return value;
        }
        if (frame.kind === 'object') {
          frame.value[frame.key] = value;
          this.skipWhitespace();
          const c = this.text[this.pos++];
          if (c === ',') {
            frame.key = this.parseKey(frame);
            path = appendPointer(frame.path, frame.key);
            break;
          }
          if (c !== '}') this.fail(frame.path, this.unexpected(c, this.pos - 1, '`,` or `}`'));
        } else {
          frame.value.push(value);
          this.skipWhitespace();
          const c = this.text[this.pos++];
          if (c === ',') {
            path = appendPointer(frame.path, frame.value.length);
            break;
          }
          if (c !== ']') this.fail(frame.path, this.unexpected(c, this.pos - 1, '`,` or `]`'));
        }
        stack.pop();
        value = frame.value;
      }
    }
  }

  /** Parses a scalar, an empty container, or opens a non-empty one (pushing its frame and returning OPENED). */
  private parseScalarOrOpen(stack: Frame[], path: string): unknown {
    this.skipWhitespace();
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      if (stack.length >= this.maxDepth) this.fail(path, `nesting deeper than ${this.maxDepth} levels`);
      this.pos++;
      this.skipWhitespace();
      if (c === '{') {
        const value: Record<string, unknown> = {};
        if (this.text[this.pos] === '}') {
          this.pos++;
          return value;
        }
        const frame: ObjectFrame = { kind: 'object', value, path, key: '' };
        frame.key = this.parseKey(frame, true);
        stack.push(frame);
        return OPENED;
      }
      const value: unknown[] = [];
      if (this.text[this.pos] === ']') {
        this.pos++;
        return value;
      }
      stack.push({ kind: 'array', value, path });
      return OPENED;
    }
    if (c === '"') return this.parseString(path);
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.parseNumber(path);
    for (const [literal, value] of LITERALS) {
      if (this.text.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return value;
      }
    }
    return this.fail(path, this.unexpected(c, this.pos, 'a json value'));
  }

  /** Reads `"key" :` after `{` or `,`; refuses duplicate and prototype-reaching keys. */
  private parseKey(frame: ObjectFrame, first = false): string {
    if (!first) this.skipWhitespace();
    if (this.text[this.pos] !== '"')
      this.fail(frame.path, this.unexpected(this.text[this.pos], this.pos, 'a string key'));
    const key = this.parseString(frame.path);
    const keyPath = appendPointer(frame.path, key);
    if (FORBIDDEN_KEYS.has(key)) this.fail(keyPath, `the key \`${key}\` is not allowed`);
    if (Object.hasOwn(frame.value, key)) this.fail(keyPath, 'duplicate key');
    this.skipWhitespace();
    if (this.text[this.pos++] !== ':')
      this.fail(keyPath, this.unexpected(this.text[this.pos - 1], this.pos - 1, '`:`'));
    return key;
  }

  private parseString(path: string): string {
    const text = this.text;
    let pos = this.pos + 1;
    let out = '';
    let chunkStart = pos;
    for (;;) {
      const code = text.charCodeAt(pos);
      if (Number.isNaN(code)) this.failAt(path, pos, 'unterminated string');
      if (code === 0x22) break;
      if (code < 0x20) this.failAt(path, pos, 'control character in string');
      if (code === 0x5c) {
        out += text.slice(chunkStart, pos);
        const escape = text[pos + 1];
        const simple = escape === undefined ? undefined : SIMPLE_ESCAPES[escape];
        if (simple !== undefined) {
          out += simple;
          pos += 2;
        } else if (escape === 'u') {
          const unit = this.readHex4(path, pos + 2);
          pos += 6;
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const low = text.startsWith('\\u', pos) ? this.readHex4(path, pos + 2) : -1;
            if (low < 0xdc00 || low > 0xdfff) this.failAt(path, pos, 'lone surrogate in string');
            out += String.fromCharCode(unit, low);
            pos += 6;
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            this.failAt(path, pos, 'lone surrogate in string');
          } else {
            out += String.fromCharCode(unit);
          }
        } else {
          this.failAt(path, pos, 'invalid escape in string');
        }
        chunkStart = pos;
        continue;
      }
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = text.charCodeAt(pos + 1);
        if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) this.failAt(path, pos, 'lone surrogate in string');
        pos += 2;
        continue;
      }
      pos++;
    }
    out += text.slice(chunkStart, pos);
    this.pos = pos + 1;
    return out;
  }

  private readHex4(path: string, at: number): number {
    const hex = this.text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.failAt(path, at, 'invalid unicode escape in string');
    return parseInt(hex, 16);
  }

  private parseNumber(path: string): number {
    NUMBER_PATTERN.lastIndex = this.pos;
    const match = NUMBER_PATTERN.exec(this.text);
    if (match === null) return this.failAt(path, this.pos, 'invalid number');
    const literal = match[0];
    const end = this.pos + literal.length;
    const after = this.text[end];
    // `01`, `1.`, `.5`, `1e`, `+1`, `0x10`, `Infinity` all stop the pattern before a character no number may hold here.
    if (after !== undefined && /[0-9.eE+\-a-zA-Z]/.test(after)) this.failAt(path, end, 'invalid number');
    const value = Number(literal);
    if (!Number.isFinite(value)) this.fail(path, 'number out of range');
    const parts = decimalParts(literal);
    if (parts.digits === '') {
      if (parts.negative) this.fail(path, 'negative zero is not allowed');
    } else if (parts.scale >= 0) {
      if (!Number.isSafeInteger(value)) this.fail(path, 'integer beyond 2^53 - 1 would lose precision');
    } else {
      if (parts.digits.length > MAX_NON_INTEGER_DIGITS) {
        this.fail(path, `number with more than ${MAX_NON_INTEGER_DIGITS} significant digits would lose precision`);
      }
      const back = decimalParts(String(value));
      // Catches underflow (1e-400 -> 0) and subnormals that keep fewer digits than written.
      if (back.digits !== parts.digits || back.scale !== parts.scale || back.negative !== parts.negative) {
        this.fail(path, 'number cannot be represented exactly');
      }
    }
    this.pos = end;
    return value;
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const code = text.charCodeAt(pos);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
      pos++;
    }
    this.pos = pos;
  }

  private unexpected(c: string | undefined, offset: number, expected: string): string {
    if (c === undefined) return `unexpected end of input, expected ${expected}`;
    // Digits are not echoed: the surrounding input may be a card number.
    const shown = /[0-9]/.test(c) ? 'a digit' : `\`${c}\``;
    return `unexpected ${shown} at offset ${offset}, expected ${expected}`;
  }

  private failAt(path: string, offset: number, message: string): never {
    return this.fail(path, `${message} at offset ${offset}`);
  }

  private fail(path: string, message: string): never {
    throw fieldError('invalid_json', path, message);
  }
}

const OPENED: unique symbol = Symbol('opened');

const LITERALS: readonly (readonly [string, unknown])[] = [
  ['true', true],
  ['false', false],
  ['null', null],
];

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
});
