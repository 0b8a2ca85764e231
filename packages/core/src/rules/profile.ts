/**
 * The strict JsonLogic profile `aar-jsonlogic/1` (CONTRACT section 19, DESIGN-27 section 1), checked by hand: no
 * JsonLogic library validates a rule against a profile, and the same closed list is ported to Python and Go.
 *
 * Attacker assumption: a rule is written by an operator who may be careless or hostile, and it is evaluated in four
 * runtimes (server, browser, Python, Go) that must agree bit for bit. So the profile admits only what all four
 * evaluate identically: a closed operator list, integer literals only, `var`/`missing` paths that are literal and
 * can never reach an inherited JS property (`length`, `constructor`, `__proto__`...), and bounded size and depth so
 * an evaluation is cheap and can never exhaust a stack. A rule that passes this check is safe to hand to
 * `json-logic-js`; every refusal names the offending value by an RFC 6901 pointer into the pack document.
 */
import { appendPointer } from '../json/json-pointer.ts';

export const RULE_PROFILE = 'aar-jsonlogic/1';

/** The closed operator list. `==`, `!=`, `/`, `log`, `method`, `?:`, `filter`, `map`, `reduce` are refused. */
export const RULE_OPERATORS = [
  'var',
  'missing',
  'missing_some',
  'if',
  '===',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'cat',
  'substr',
  'some',
  'all',
  'none',
  'merge',
  'min',
  'max',
  '+',
  '-',
  '*',
  '%',
] as const;

export type RuleOperator = (typeof RULE_OPERATORS)[number];

export const MAX_RULE_DEPTH = 32;
export const MAX_RULE_NODES = 2000;
/** UTF-8 bytes of a pack document's JSON text */
export const MAX_PACK_BYTES = 256 * 1024;

/** A path segment of `var` / `missing`: letters, digits, underscore. */
export const RULE_PATH_SEGMENT = /^[A-Za-z0-9_]+$/;

/**
 * Every own property name of Object.prototype, Array.prototype, String.prototype, Number.prototype and
 * Boolean.prototype (Node 20), sorted. A path segment with one of these names is refused: `json-logic-js` reads
 * `data[segment]`, which would find the inherited property (a function, or a string's `length`) where Python and Go
 * find nothing. Written as a literal so every runtime refuses the same list (Python and Go copy it); the test
 * `profile.test.ts` recomputes it from the prototypes and fails when a runtime adds a name. Number.prototype
 * (`toFixed`...) is included beyond DESIGN-27's three prototypes because counters are numbers.
 */
export const INHERITED_PROPERTY_NAMES: readonly string[] = [
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  '__proto__',
  'anchor',
  'at',
  'big',
  'blink',
  'bold',
  'charAt',
  'charCodeAt',
  'codePointAt',
  'concat',
  'constructor',
  'copyWithin',
  'endsWith',
  'entries',
  'every',
  'fill',
  'filter',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'fixed',
  'flat',
  'flatMap',
  'fontcolor',
  'fontsize',
  'forEach',
  'hasOwnProperty',
  'includes',
  'indexOf',
  'isPrototypeOf',
  'isWellFormed',
  'italics',
  'join',
  'keys',
  'lastIndexOf',
  'length',
  'link',
  'localeCompare',
  'map',
  'match',
  'matchAll',
  'normalize',
  'padEnd',
  'padStart',
  'pop',
  'propertyIsEnumerable',
  'push',
  'reduce',
  'reduceRight',
  'repeat',
  'replace',
  'replaceAll',
  'reverse',
  'search',
  'shift',
  'slice',
  'small',
  'some',
  'sort',
  'splice',
  'split',
  'startsWith',
  'strike',
  'sub',
  'substr',
  'substring',
  'sup',
  'toExponential',
  'toFixed',
  'toLocaleLowerCase',
  'toLocaleString',
  'toLocaleUpperCase',
  'toLowerCase',
  'toPrecision',
  'toReversed',
  'toSorted',
  'toSpliced',
  'toString',
  'toUpperCase',
  'toWellFormed',
  'trim',
  'trimEnd',
  'trimLeft',
  'trimRight',
  'trimStart',
  'unshift',
  'valueOf',
  'values',
  'with',
];

const OPERATORS: ReadonlySet<string> = new Set(RULE_OPERATORS);
const INHERITED: ReadonlySet<string> = new Set(INHERITED_PROPERTY_NAMES);
/** operators whose second argument is evaluated with each array element as the data */
const SCOPED: ReadonlySet<string> = new Set(['some', 'all', 'none']);

export interface RuleProblem {
  /** RFC 6901 pointer into the document */
  pointer: string;
  message: string;
}

/** Why a `var`/`missing` path is refused, or undefined when it is inside the profile. `""` (the whole data) is. */
export function pathProblem(path: string): string | undefined {
  if (path === '') return undefined;
  for (const segment of path.split('.')) {
    if (!RULE_PATH_SEGMENT.test(segment)) {
      return `path ${JSON.stringify(path)}: segment ${JSON.stringify(segment)} must match ^[A-Za-z0-9_]+$`;
    }
    if (INHERITED.has(segment)) {
      return `path ${JSON.stringify(path)}: segment ${JSON.stringify(segment)} is an inherited property name`;
    }
  }
  return undefined;
}

/**
 * Every refusal of `expr` against the profile, each with a pointer under `pointer` (where `expr` sits in its
 * document, `""` for a bare rule). Empty: the rule is inside the profile. Never throws on JSON input; stops
 * descending past the depth limit (one problem is enough there).
 */
export function checkRuleProfile(expr: unknown, pointer: string): RuleProblem[] {
  const state: CheckState = { problems: [], nodes: 0 };
  checkNode(expr, pointer, 1, state);
  if (state.nodes > MAX_RULE_NODES) {
    state.problems.push({ pointer, message: `rule has ${state.nodes} nodes, at most ${MAX_RULE_NODES} allowed` });
  }
  return state.problems;
}

interface CheckState {
  problems: RuleProblem[];
  nodes: number;
}

/** Counts the node at `depth` (the rule itself is level 1); false (after a refusal) when it is past the limit. */
function enter(pointer: string, depth: number, state: CheckState): boolean {
  state.nodes++;
  if (depth <= MAX_RULE_DEPTH) return true;
  state.problems.push({ pointer, message: `rule nests deeper than ${MAX_RULE_DEPTH} levels` });
  return false;
}

function checkNode(value: unknown, pointer: string, depth: number, state: CheckState): void {
  if (!enter(pointer, depth, state)) return;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      state.problems.push({ pointer, message: `number ${String(value)} is not a safe integer (integers only)` });
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkNode(item, appendPointer(pointer, i), depth + 1, state));
    return;
  }
  if (typeof value !== 'object') {
    state.problems.push({ pointer, message: `${typeof value} is not a JSON value` });
    return;
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    state.problems.push({
      pointer,
      message: `an object in a rule must be an operation with exactly one operator (found ${keys.length} members)`,
    });
    return;
  }
  const op = keys[0]!;
  const args: unknown = (value as Record<string, unknown>)[op];
  const at = appendPointer(pointer, op);
  if (!OPERATORS.has(op)) {
    state.problems.push({ pointer: at, message: `operator ${JSON.stringify(op)} is not in the profile` });
    return;
  }
  if (op === 'var') return checkVar(args, at, depth + 1, state);
  if (op === 'missing') return checkMissing(args, at, depth + 1, state);
  if (op === 'missing_some') return checkMissingSome(args, at, depth + 1, state);
  if (SCOPED.has(op) && (!Array.isArray(args) || args.length !== 2)) {
    state.problems.push({ pointer: at, message: `${op} takes exactly two arguments: [array, rule]` });
    return;
  }
  checkNode(args, at, depth + 1, state);
}

/** `"path"`, `integer`, `["path"]` or `["path", default]`; the default may be any rule. */
function checkVar(args: unknown, pointer: string, depth: number, state: CheckState): void {
  if (!Array.isArray(args)) return checkLiteralPath(args, pointer, depth, state);
  if (!enter(pointer, depth, state)) return;
  if (args.length < 1 || args.length > 2) {
    state.problems.push({ pointer, message: 'var takes [path] or [path, default]' });
    return;
  }
  checkLiteralPath(args[0], appendPointer(pointer, 0), depth + 1, state);
  if (args.length === 2) checkNode(args[1], appendPointer(pointer, 1), depth + 1, state);
}

/** `"path"`, `["p1", "p2"...]` or `[["p1", "p2"...]]`: literal paths only. */
function checkMissing(args: unknown, pointer: string, depth: number, state: CheckState): void {
  if (!Array.isArray(args)) return checkLiteralPath(args, pointer, depth, state);
  if (!enter(pointer, depth, state)) return;
  if (args.length === 1 && Array.isArray(args[0])) {
    return checkPathList(args[0], appendPointer(pointer, 0), depth + 1, state);
  }
  args.forEach((item, i) => checkLiteralPath(item, appendPointer(pointer, i), depth + 1, state));
}

/** `[need_count, ["p1", ...]]`: the count is any rule, the paths literal. */
function checkMissingSome(args: unknown, pointer: string, depth: number, state: CheckState): void {
  if (!enter(pointer, depth, state)) return;
  if (!Array.isArray(args) || args.length !== 2) {
    state.problems.push({ pointer, message: 'missing_some takes [need_count, [paths]]' });
    return;
  }
  checkNode(args[0], appendPointer(pointer, 0), depth + 1, state);
  checkPathList(args[1], appendPointer(pointer, 1), depth + 1, state);
}

function checkPathList(list: unknown, pointer: string, depth: number, state: CheckState): void {
  if (!enter(pointer, depth, state)) return;
  if (!Array.isArray(list)) {
    state.problems.push({ pointer, message: 'expected a literal array of paths' });
    return;
  }
  list.forEach((item, i) => checkLiteralPath(item, appendPointer(pointer, i), depth + 1, state));
}

function checkLiteralPath(path: unknown, pointer: string, depth: number, state: CheckState): void {
  if (!enter(pointer, depth, state)) return;
  let text: string;
  if (typeof path === 'string') text = path;
  else if (typeof path === 'number' && Number.isSafeInteger(path)) text = String(path);
  else {
    state.problems.push({
      pointer,
      message: 'a path must be a literal string or integer (computed paths are refused)',
    });
    return;
  }
  const problem = pathProblem(text);
  if (problem) state.problems.push({ pointer, message: problem });
}

/**
 * The data paths a profile-checked rule reads at the top scope (`var` and `missing` paths; paths inside the rule of
 * `some`/`all`/`none` read the array's elements and are not listed). Appends to `into`.
 */
export function collectRulePaths(expr: unknown, into: string[]): void {
  if (Array.isArray(expr)) {
    for (const item of expr) collectRulePaths(item, into);
    return;
  }
  if (expr === null || typeof expr !== 'object') return;
  const keys = Object.keys(expr);
  if (keys.length !== 1) return;
  const op = keys[0]!;
  const args: unknown = (expr as Record<string, unknown>)[op];
  if (op === 'var') {
    const list = Array.isArray(args) ? args : [args];
    if (typeof list[0] === 'string' || typeof list[0] === 'number') into.push(String(list[0]));
    if (list.length === 2) collectRulePaths(list[1], into);
    return;
  }
  if (op === 'missing') {
    const list = Array.isArray(args) ? (args.length === 1 && Array.isArray(args[0]) ? args[0] : args) : [args];
    for (const path of list) if (typeof path === 'string' || typeof path === 'number') into.push(String(path));
    return;
  }
  if (op === 'missing_some' && Array.isArray(args)) {
    collectRulePaths(args[0], into);
    if (Array.isArray(args[1])) {
      for (const path of args[1]) if (typeof path === 'string' || typeof path === 'number') into.push(String(path));
    }
    return;
  }
  if (SCOPED.has(op) && Array.isArray(args)) {
    collectRulePaths(args[0], into);
    return;
  }
  collectRulePaths(args, into);
}
