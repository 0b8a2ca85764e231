/**
 * A profile-checked rule compiled once into a JavaScript closure. Hand-written because json-logic-js interprets the
 * rule on every call (array maps, `Object.keys`, `arguments` reductions: about 3 µs a rule on the hot path of
 * decide); the closure tree does the same work with the rule's shape resolved at compile time.
 *
 * INVARIANT: for every rule inside `aar-jsonlogic/1` and every data, `compileRule(rule)(data)` returns exactly what
 * json-logic-js 2.0.5's `apply(rule, data)` returns (value level: -0, NaN, `undefined`, fresh arrays), and throws
 * exactly where it throws. It mirrors json-logic-js 2.0.5 for the profile's operators only: same order of evaluation
 * (every argument of an ordinary operator is evaluated, left to right, before the operator runs, so a throwing
 * argument throws even where the operator ignores it), same coercions (the JS operators themselves, `parseFloat` for
 * `+`/`*`, `Array.prototype.join` for `cat`...), same scoping (`some`/`all`/`none` evaluate their rule with each
 * element as the data). json-logic-js remains the reference: the differential vectors record its answers, and the
 * tests compare this compiler with it on those vectors, the shared suite and random rules.
 *
 * Anything outside what the profile admits (an operator not in RULE_OPERATORS, a computed `var`/`missing` path)
 * throws RuleCompileError at compile time, so the caller can fall back to json-logic-js: never a weaker evaluation.
 * The closures capture the rule's literals when compiled: a rule mutated afterwards is not seen (packs are prepared
 * once per document object, which is never mutated).
 */

/** A compiled rule: json-logic-js's raw answer for `data`. Throws where json-logic-js throws. */
export type CompiledRule = (data: unknown) => unknown;

/** The rule holds something the compiler does not mirror (outside the profile): evaluate it with json-logic-js. */
export class RuleCompileError extends Error {}

/** Compiles a rule the caller has checked against the profile (checkRuleProfile). Throws RuleCompileError. */
export function compileRule(expr: unknown): CompiledRule {
  return compileNode(expr);
}

/** `jsonLogic.truthy`: JS truthiness, except that `[]` is falsy. */
export function truthy(value: unknown): boolean {
  if (Array.isArray(value) && value.length === 0) return false;
  return !!value;
}

type Fn = CompiledRule;
type Path = string | number;

/** `jsonLogic.is_logic` */
function isLogic(node: unknown): node is Record<string, unknown> {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && Object.keys(node).length === 1;
}

function compileNode(node: unknown): Fn {
  // json-logic-js maps an array to a fresh array of its evaluated members, on every call
  if (Array.isArray(node)) return compileArray(node.map(compileNode));
  if (!isLogic(node)) return () => node;
  const op = Object.keys(node)[0]!;
  const raw = node[op];
  const values: unknown[] = Array.isArray(raw) ? raw : [raw];
  switch (op) {
    case 'if':
      return compileIf(values.map(compileNode));
    case 'and':
      return compileAnd(values.map(compileNode));
    case 'or':
      return compileOr(values.map(compileNode));
    case 'some':
    case 'all':
    case 'none':
      return compileScoped(op, compileNode(values[0]), compileNode(values[1]));
    case 'var':
      return compileVar(values);
    case 'missing':
      return compileMissing(values);
    case 'missing_some':
      return compileMissingSome(values);
    case 'in':
      return compileIn(values);
    default:
      break;
  }
  const operation = OPERATIONS[op];
  if (operation === undefined || !Object.prototype.hasOwnProperty.call(OPERATIONS, op)) {
    throw new RuleCompileError(`operator ${JSON.stringify(op)} is not compiled`);
  }
  return compileOperation(op, operation, values.map(compileNode));
}

function compileArray(items: Fn[]): Fn {
  const n = items.length;
  if (n === 0) return () => [];
  if (n === 1) {
    const a = items[0]!;
    return (d) => [a(d)];
  }
  if (n === 2) {
    const a = items[0]!;
    const b = items[1]!;
    return (d) => {
      const x = a(d);
      return [x, b(d)];
    };
  }
  return (d) => evaluateAll(items, d);
}

function evaluateAll(items: Fn[], d: unknown): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < items.length; i++) out.push(items[i]!(d));
  return out;
}

/** Pairs of (condition, consequent); a lone last value is the else; none left: null. */
function compileIf(fns: Fn[]): Fn {
  const n = fns.length;
  if (n === 0) return () => null;
  if (n === 1) return fns[0]!;
  if (n === 2 || n === 3) {
    const c = fns[0]!;
    const t = fns[1]!;
    const e = n === 3 ? fns[2]! : () => null;
    return (d) => (truthy(c(d)) ? t(d) : e(d));
  }
  return (d) => {
    let i: number;
    for (i = 0; i < n - 1; i += 2) {
      if (truthy(fns[i]!(d))) return fns[i + 1]!(d);
    }
    if (n === i + 1) return fns[i]!(d);
    return null;
  };
}

/** The first falsy operand's value, else the last (undefined when there is none). */
function compileAnd(fns: Fn[]): Fn {
  const n = fns.length;
  if (n === 0) return () => undefined;
  if (n === 1) return fns[0]!;
  if (n === 2) {
    const a = fns[0]!;
    const b = fns[1]!;
    return (d) => {
      const x = a(d);
      return truthy(x) ? b(d) : x;
    };
  }
  return (d) => {
    let current: unknown;
    for (let i = 0; i < n; i++) {
      current = fns[i]!(d);
      if (!truthy(current)) return current;
    }
    return current;
  };
}

/** The first truthy operand's value, else the last (undefined when there is none). */
function compileOr(fns: Fn[]): Fn {
  const n = fns.length;
  if (n === 0) return () => undefined;
  if (n === 1) return fns[0]!;
  if (n === 2) {
    const a = fns[0]!;
    const b = fns[1]!;
    return (d) => {
      const x = a(d);
      return truthy(x) ? x : b(d);
    };
  }
  return (d) => {
    let current: unknown;
    for (let i = 0; i < n; i++) {
      current = fns[i]!(d);
      if (truthy(current)) return current;
    }
    return current;
  };
}

/** `some`/`all`/`none`: the rule sees each element as its data; a non-array or empty array: false/false/true. */
function compileScoped(op: 'some' | 'all' | 'none', source: Fn, body: Fn): Fn {
  if (op === 'some') {
    return (d) => {
      const items = source(d);
      if (!Array.isArray(items) || !items.length) return false;
      for (let i = 0; i < items.length; i++) if (truthy(body(items[i]))) return true;
      return false;
    };
  }
  if (op === 'all') {
    return (d) => {
      const items = source(d);
      if (!Array.isArray(items) || !items.length) return false;
      for (let i = 0; i < items.length; i++) if (!truthy(body(items[i]))) return false;
      return true;
    };
  }
  return (d) => {
    const items = source(d);
    if (!Array.isArray(items) || !items.length) return true;
    for (let i = 0; i < items.length; i++) if (truthy(body(items[i]))) return false;
    return true;
  };
}

function literalPath(value: unknown): Path {
  if (typeof value === 'string' || typeof value === 'number') return value;
  throw new RuleCompileError('a var/missing path must be a literal string or number');
}

/** json-logic-js's `var` descent from `data` along `segments` (`undefined` at any step: not found). */
function lookup(data: unknown, segments: readonly string[], notFound: unknown): unknown {
  let current = data;
  for (let i = 0; i < segments.length; i++) {
    if (current === null || current === undefined) return notFound;
    current = (current as Record<string, unknown>)[segments[i]!];
    if (current === undefined) return notFound;
  }
  return current;
}

/** The path's segments, or undefined for `""` (the whole data). */
function segmentsOf(path: Path): string[] | undefined {
  return path === '' ? undefined : String(path).split('.');
}

/** `{"var": path}` / `[path]` / `[path, default]`: the default (null when absent) is evaluated on every call. */
function compileVar(values: unknown[]): Fn {
  const segments = segmentsOf(literalPath(values[0]));
  const fallback = values.length >= 2 ? compileNode(values[1]) : undefined;
  // arguments past the default are evaluated and ignored, as json-logic-js does
  const extra = values.slice(2).map(compileNode);
  const ignored = extra.length === 0 ? undefined : (d: unknown) => void evaluateAll(extra, d);
  if (fallback !== undefined || ignored !== undefined) {
    return (d) => {
      const b = fallback === undefined ? undefined : fallback(d);
      if (ignored !== undefined) ignored(d);
      if (segments === undefined) return d;
      return lookup(d, segments, b === undefined ? null : b);
    };
  }
  if (segments === undefined) return (d) => d;
  if (segments.length === 1) {
    const s = segments[0]!;
    return (d) => {
      if (d === null || d === undefined) return null;
      const v = (d as Record<string, unknown>)[s];
      return v === undefined ? null : v;
    };
  }
  if (segments.length === 2) {
    const s0 = segments[0]!;
    const s1 = segments[1]!;
    return (d) => {
      if (d === null || d === undefined) return null;
      const v = (d as Record<string, unknown>)[s0];
      if (v === undefined || v === null) return null;
      const w = (v as Record<string, unknown>)[s1];
      return w === undefined ? null : w;
    };
  }
  if (segments.length === 3) {
    const s0 = segments[0]!;
    const s1 = segments[1]!;
    const s2 = segments[2]!;
    return (d) => {
      if (d === null || d === undefined) return null;
      const u = (d as Record<string, unknown>)[s0];
      if (u === undefined || u === null) return null;
      const v = (u as Record<string, unknown>)[s1];
      if (v === undefined || v === null) return null;
      const w = (v as Record<string, unknown>)[s2];
      return w === undefined ? null : w;
    };
  }
  return (d) => lookup(d, segments, null);
}

/** `{"var": key}` as `missing` evaluates it: null when not found. */
function keyReader(key: Path): (d: unknown) => unknown {
  const segments = segmentsOf(key);
  return segments === undefined ? (d) => d : (d) => lookup(d, segments, null);
}

/** The literal keys `missing` checks: its arguments, or its one array argument's members. */
function missingKeys(values: unknown[]): Path[] {
  const list = values.length > 0 && Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
  return list.map(literalPath);
}

/** The keys whose value is null (not found) or `""`, in order (json-logic-js's `missing`). */
function missingReader(keys: Path[]): (d: unknown) => Path[] {
  const readers = keys.map(keyReader);
  return (d) => {
    const missing: Path[] = [];
    for (let i = 0; i < readers.length; i++) {
      const value = readers[i]!(d);
      if (value === null || value === '') missing.push(keys[i]!);
    }
    return missing;
  };
}

function compileMissing(values: unknown[]): Fn {
  return missingReader(missingKeys(values));
}

/** `[need_count, [paths]]`: [] when at least need_count paths are present, else the missing ones. */
function compileMissingSome(values: unknown[]): Fn {
  if (values.length !== 2 || !Array.isArray(values[1])) {
    throw new RuleCompileError('missing_some takes [need_count, [literal paths]]');
  }
  const need = compileNode(values[0]);
  const options = (values[1] as unknown[]).map(literalPath);
  // json-logic-js re-applies {"missing": options}: its first member is never an array here (literal paths)
  const missing = missingReader(options);
  const count = options.length;
  return (d) => {
    const needCount = need(d);
    const areMissing = missing(d);
    return count - areMissing.length >= (needCount as number) ? [] : areMissing;
  };
}

/** `in`: substring of a string, strict member of an array, false for anything without `indexOf`. */
function inOperation(a: unknown, b: unknown): boolean {
  if (!b || typeof (b as { indexOf?: unknown }).indexOf === 'undefined') return false;
  return (b as { indexOf(x: unknown): number }).indexOf(a) !== -1;
}

function isPrimitiveLiteral(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function compileIn(values: unknown[]): Fn {
  if (values.length === 2) {
    const a = compileNode(values[0]);
    const list = values[1];
    if (Array.isArray(list) && list.every(isPrimitiveLiteral)) {
      // a literal list of literals: its evaluation is a fresh copy only ever searched, so one copy serves
      const constant = list.slice();
      return (d) => constant.indexOf(a(d)) !== -1;
    }
    const b = compileNode(list);
    return (d) => {
      const x = a(d);
      return inOperation(x, b(d));
    };
  }
  return compileOperation('in', OPERATIONS.in!, values.map(compileNode));
}

/** `parseFloat(x, 10)` as json-logic-js's `+`/`*` apply it; a number's round trip through String is exact but -0. */
function toFloat(x: unknown): number {
  if (typeof x === 'number') return x === 0 ? 0 : x;
  return parseFloat(x as string);
}

type Operation = (this: unknown, ...args: unknown[]) => unknown;

/** json-logic-js 2.0.5's ordinary operations of the profile, copied (`var`/`missing`/`in` are compiled above). */
const OPERATIONS: Record<string, Operation> = {
  '===': (a, b) => a === b,
  '!==': (a, b) => a !== b,
  '>': (a, b) => (a as number) > (b as number),
  '>=': (a, b) => (a as number) >= (b as number),
  '<': (a, b, c) =>
    c === undefined ? (a as number) < (b as number) : (a as number) < (b as number) && (b as number) < (c as number),
  '<=': (a, b, c) =>
    c === undefined ? (a as number) <= (b as number) : (a as number) <= (b as number) && (b as number) <= (c as number),
  '!!': (a) => truthy(a),
  '!': (a) => !truthy(a),
  '%': (a, b) => (a as number) % (b as number),
  in: (a, b) => inOperation(a, b),
  cat: (...args) => args.join(''),
  substr: (source, start, end) => {
    if ((end as number) < 0) {
      // JavaScript has no negative end: json-logic-js emulates PHP
      const temp = String(source).substr(start as number);
      return temp.substr(0, temp.length + (end as number));
    }
    return String(source).substr(start as number, end as number);
  },
  '+': (...args) => {
    let sum: number = 0;
    for (let i = 0; i < args.length; i++) sum = toFloat(sum) + toFloat(args[i]);
    return sum;
  },
  '*': (...args) => {
    if (args.length === 0) throw new TypeError('Reduce of empty array with no initial value');
    let product: unknown = args[0];
    for (let i = 1; i < args.length; i++) product = toFloat(product) * toFloat(args[i]);
    return product;
  },
  '-': (a, b) => (b === undefined ? -(a as number) : (a as number) - (b as number)),
  min: (...args) => Math.min(...(args as number[])),
  max: (...args) => Math.max(...(args as number[])),
  merge: (...args) => {
    let merged: unknown[] = [];
    for (let i = 0; i < args.length; i++) merged = merged.concat(args[i]);
    return merged;
  },
};

/** Every argument evaluated left to right, then the operation; two-argument forms of the hot operators inlined. */
function compileOperation(op: string, operation: Operation, args: Fn[]): Fn {
  if (args.length === 2) {
    const a = args[0]!;
    const b = args[1]!;
    switch (op) {
      case '===':
        return (d) => a(d) === b(d);
      case '!==':
        return (d) => a(d) !== b(d);
      case '>':
        return (d) => (a(d) as number) > (b(d) as number);
      case '>=':
        return (d) => (a(d) as number) >= (b(d) as number);
      case '<':
        return (d) => (a(d) as number) < (b(d) as number);
      case '<=':
        return (d) => (a(d) as number) <= (b(d) as number);
      case '%':
        return (d) => (a(d) as number) % (b(d) as number);
      case '+':
        return (d) => {
          const x = a(d);
          const y = b(d);
          return toFloat(0 + toFloat(x)) + toFloat(y);
        };
      default:
        return (d) => {
          const x = a(d);
          return operation.call(d, x, b(d));
        };
    }
  }
  if (args.length === 1) {
    const a = args[0]!;
    switch (op) {
      case '!':
        return (d) => !truthy(a(d));
      case '!!':
        return (d) => truthy(a(d));
      default:
        return (d) => operation.call(d, a(d));
    }
  }
  return (d) => operation.apply(d, evaluateAll(args, d));
}
