/**
 * A rule in plain English, for people reading a pack beside its JSON (the console, the simulator, docs):
 * `{">=": [{"var": "facts.counters.purchases_1h"}, 5]}` reads "the principal's purchases in the last hour is at least 5".
 * Written by hand: no library renders JsonLogic as prose. Pure and total: any JSON value gives a string (a draft may
 * hold a rule outside the profile; such parts are shown as their JSON), never a throw, and the depth is bounded, so
 * an attacker-supplied document cannot exhaust the stack. The words describe; the JSON beside them is what evaluates.
 */

/** Nouns for the context paths rules read (DESIGN-27 section 3); money paths are in minor units. */
const NOUNS: Record<string, string> = {
  'facts.counters.purchases_1h': "the principal's purchases in the last hour",
  'facts.counters.purchases_24h': "the principal's purchases in the last 24 hours",
  'facts.counters.spend_24h_minor': "the principal's spend in the last 24 hours",
  'facts.counters.spend_30d_minor': "the principal's spend in the last 30 days",
  'facts.counters.merchant_first_purchase': "the principal's first purchase at this merchant",
  'facts.counters.agent_purchases_1h': "this agent's purchases in the last hour",
  'facts.counters.agent_purchases_24h': "this agent's purchases in the last 24 hours",
  'facts.local_time.hour': 'local hour',
  'facts.local_time.minute': 'local minute',
  'facts.local_time.weekday': 'local weekday (1 = Monday, 7 = Sunday)',
  'facts.local_time.date': 'local date',
  'facts.local_time.zone': "the principal's time zone",
  'facts.merchant.category': 'the merchant category',
  'facts.merchant.jurisdiction': "the merchant's country",
  'facts.merchant.merchant_id': 'the merchant',
  'facts.merchant.state': "the merchant's state",
  'facts.principal.entity_id': 'the principal',
  'facts.principal.type': "the principal's type",
  'facts.principal.state': "the principal's state",
  'facts.actor.entity_id': 'the agent',
  'facts.actor.state': "the agent's state",
  'facts.instrument.state': "the card token's state",
  'request.amount.minor': 'the amount',
  'request.amount.currency': 'the currency',
  'request.merchant_id': 'the merchant',
  'request.action': 'the action',
  'request.actor_entity_id': 'the agent',
  'request.principal_entity_id': 'the principal',
  'request.instrument_id': 'the card token',
  'request.basket.items': "the basket's items",
};

/** Boolean facts read as a sentence, and as its negation. */
const PREDICATES: Record<string, [string, string]> = {
  'facts.counters.merchant_first_purchase': [
    'the principal never bought from this merchant before',
    'the principal bought from this merchant before',
  ],
};

const MAX_DEPTH = 40;
const MAX_LIST = 8;

type Scope = 'context' | 'item';

interface Said {
  text: string;
  /** the value is an amount in minor units (a literal compared with it is shown as such) */
  money: boolean;
  /** joins clauses with and/or: parenthesised when nested in another joint */
  joint: boolean;
}

const said = (text: string, money = false, joint = false): Said => ({ text, money, joint });

function operation(expr: unknown): [string, unknown[]] | undefined {
  if (expr === null || typeof expr !== 'object' || Array.isArray(expr)) return undefined;
  const keys = Object.keys(expr);
  if (keys.length !== 1) return undefined;
  const op = keys[0]!;
  const raw = (expr as Record<string, unknown>)[op];
  return [op, Array.isArray(raw) ? raw : [raw]];
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function literal(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  if (Array.isArray(value)) return listOf(value.map(literal), 'and');
  return json(value);
}

function listOf(items: string[], word: 'and' | 'or'): string {
  if (items.length === 0) return 'nothing';
  const shown = items.length > MAX_LIST ? [...items.slice(0, MAX_LIST), `${items.length - MAX_LIST} more`] : items;
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} ${word} ${shown[shown.length - 1]}`;
}

function isMoneyPath(path: string): boolean {
  return path === 'request.amount.minor' || path.endsWith('_minor') || path.endsWith('.minor');
}

function pathNoun(path: string, scope: Scope): Said {
  if (scope === 'item') {
    return said(path === '' ? 'the item' : `the item's ${path.replaceAll('.', ' ')}`, isMoneyPath(path));
  }
  if (path === '') return said('the whole context');
  const known = NOUNS[path];
  if (known) return said(known, isMoneyPath(path));
  const dict = /^dict\.([^.]+)(?:\.(codes|terms)(?:\.([^.]+)(?:\.(.+))?)?)?$/.exec(path);
  if (dict) {
    const [, name, part, code, attr] = dict;
    if (part === 'codes') return said(`the codes of dictionary ${name}`);
    if (code && attr) return said(`the ${attr.replaceAll('.', ' ')} of term "${code}" in dictionary ${name}`);
    if (code) return said(`term "${code}" of dictionary ${name}`);
    return said(part ? `the terms of dictionary ${name}` : `dictionary ${name}`);
  }
  return said(path, isMoneyPath(path));
}

function variable(args: unknown[], scope: Scope): Said {
  const path = args[0] === null || args[0] === undefined ? '' : args[0];
  if (typeof path !== 'string' && typeof path !== 'number') return said(`the value at ${json(path)}`);
  const noun = pathNoun(String(path), scope);
  return args.length > 1 ? said(`${noun.text} (${literal(args[1])} when absent)`, noun.money) : noun;
}

/** Sentence-level reading: what it means for this expression to be true. */
function condition(expr: unknown, scope: Scope, depth: number): Said {
  if (depth > MAX_DEPTH) return said('…');
  if (expr === true) return said('always');
  if (expr === false || expr === null) return said('never');
  const op = operation(expr);
  if (!op) return said(`${value(expr, scope, depth).text} is true`);
  const [name, args] = op;
  const next = depth + 1;
  switch (name) {
    case 'and':
    case 'or': {
      if (args.length === 1) return condition(args[0], scope, next);
      const parts = args.map((a) => {
        const part = condition(a, scope, next);
        return part.joint ? `(${part.text})` : part.text;
      });
      return said(listOf(parts, name), false, true);
    }
    case '!':
      return negation(args[0], scope, next);
    case '!!':
      return condition(args[0], scope, next);
    case 'var': {
      const path = typeof args[0] === 'string' ? args[0] : undefined;
      const predicate = scope === 'context' && path !== undefined ? PREDICATES[path] : undefined;
      return predicate ? said(predicate[0]) : said(`${variable(args, scope).text} is true`);
    }
    case 'if':
      return choice(args, scope, next, (a) => condition(a, scope, next).text);
    case 'missing':
    case 'missing_some':
      return missing(name, args, scope, next);
    case 'some':
    case 'all':
    case 'none':
      return quantified(name, args, scope, next);
    case '===':
    case '!==':
    case '<':
    case '<=':
    case '>':
    case '>=':
    case 'in':
      return comparison(name, args, scope, next);
    default:
      return said(`${value(expr, scope, depth).text} is true`);
  }
}

function negation(expr: unknown, scope: Scope, depth: number): Said {
  const op = operation(expr);
  if (op) {
    const [name, args] = op;
    if (name === 'var' && scope === 'context' && typeof args[0] === 'string' && PREDICATES[args[0]]) {
      return said(PREDICATES[args[0]]![1]);
    }
    if (name === 'var') return said(`${variable(args, scope).text} is not true`);
    if (name === '===') return comparison('!==', args, scope, depth);
    if (name === '!==') return comparison('===', args, scope, depth);
    if (name === 'in') return comparison('!in', args, scope, depth);
    if (name === '!' || name === '!!') {
      return name === '!' ? condition(args[0], scope, depth + 1) : negation(args[0], scope, depth + 1);
    }
    if (name === 'missing' && args.length === 1 && typeof args[0] === 'string') {
      return said(`${pathNoun(args[0], scope).text} is present`);
    }
  }
  return said(`it is not the case that ${condition(expr, scope, depth).text}`);
}

const COMPARE: Record<string, [string, string]> = {
  '<': ['is less than', '>'],
  '<=': ['is at most', '>='],
  '>': ['is more than', '<'],
  '>=': ['is at least', '<='],
  '===': ['is', '==='],
  '!==': ['is not', '!=='],
};

function isLiteral(expr: unknown): boolean {
  return operation(expr) === undefined;
}

/** A literal beside a money value is an amount in minor units. */
function operand(expr: unknown, other: Said, scope: Scope, depth: number): string {
  const text = value(expr, scope, depth).text;
  return other.money && typeof expr === 'number' ? `${text} minor units` : text;
}

function comparison(name: string, args: unknown[], scope: Scope, depth: number): Said {
  if (name === 'in' || name === '!in') {
    const [needle, haystack] = args;
    const a = value(needle, scope, depth);
    const not = name === '!in' ? ' not' : '';
    if (Array.isArray(haystack)) {
      return said(
        `${a.text} is${not} one of ${listOf(
          haystack.map((h) => operand(h, a, scope, depth)),
          'or',
        )}`,
      );
    }
    if (typeof haystack === 'string') return said(`${a.text} is${not} part of "${haystack}"`);
    const b = value(haystack, scope, depth);
    const list = /codes|items|in dictionary|^the list/.test(b.text);
    return said(`${a.text} is${not} ${list ? 'one of' : 'in'} ${b.text}`);
  }
  const [word, flipped] = COMPARE[name]!;
  if ((name === '<' || name === '<=') && args.length >= 3) {
    const middle = value(args[1], scope, depth);
    const low = operand(args[0], middle, scope, depth);
    const high = operand(args[2], middle, scope, depth);
    return said(`${middle.text} is between ${low} and ${high}${name === '<' ? ' (both excluded)' : ''}`);
  }
  let [left, right] = args;
  // a boolean fact compared with true or false reads as its sentence
  const fact = operation(left)?.[0] === 'var' ? operation(left)![1][0] : undefined;
  const predicate = scope === 'context' && typeof fact === 'string' ? PREDICATES[fact] : undefined;
  if (predicate && typeof right === 'boolean' && (name === '===' || name === '!==')) {
    return said(predicate[right === (name === '===') ? 0 : 1]);
  }
  let verb = word;
  if (isLiteral(left) && !isLiteral(right)) {
    [left, right] = [right, left];
    verb = COMPARE[flipped]![0];
  }
  const a = value(left, scope, depth);
  const b = value(right, scope, depth);
  const rightText = a.money && typeof right === 'number' ? `${b.text} minor units` : b.text;
  const leftText = b.money && typeof left === 'number' ? `${a.text} minor units` : a.text;
  return said(`${leftText} ${verb} ${rightText}`);
}

function choice(args: unknown[], scope: Scope, depth: number, branch: (expr: unknown) => string): Said {
  if (args.length === 0) return said('nothing');
  if (args.length === 1) return said(branch(args[0]));
  const parts: string[] = [];
  let i = 0;
  for (; i + 1 < args.length; i += 2) {
    parts.push(`${i === 0 ? 'if' : 'else if'} ${condition(args[i], scope, depth).text} then ${branch(args[i + 1])}`);
  }
  if (i < args.length) parts.push(`otherwise ${branch(args[i])}`);
  return said(parts.join(', '), false, true);
}

function missing(name: string, args: unknown[], scope: Scope, depth: number): Said {
  const names = (list: unknown[]) =>
    list.map((p) => (typeof p === 'string' ? pathNoun(p, scope).text : value(p, scope, depth).text));
  if (name === 'missing') {
    const all = names(args);
    return said(all.length === 1 ? `${all[0]} is missing` : `any of ${listOf(all, 'or')} is missing`);
  }
  const [need, options] = args;
  const list = Array.isArray(options) ? names(options) : [value(options, scope, depth).text];
  return said(`fewer than ${literal(need)} of ${listOf(list, 'and')} are present`);
}

function quantified(name: string, args: unknown[], scope: Scope, depth: number): Said {
  const list = value(args[0], scope, depth).text;
  const test = condition(args[1], 'item', depth).text;
  if (name === 'some') return said(`at least one of ${list} matches: ${test}`);
  if (name === 'none') return said(`none of ${list} matches: ${test}`);
  return said(`${list} is not empty and every one matches: ${test}`);
}

/** Noun-level reading: what this expression's value is. */
function value(expr: unknown, scope: Scope, depth: number): Said {
  if (depth > MAX_DEPTH) return said('…');
  const op = operation(expr);
  if (!op) return said(literal(expr));
  const [name, args] = op;
  const next = depth + 1;
  const each = () => args.map((a) => value(a, scope, next));
  const money = (parts: Said[]) => parts.some((p) => p.money);
  switch (name) {
    case 'var':
      return variable(args, scope);
    case '+':
    case '*': {
      const parts = each();
      if (parts.length === 1) return said(`${parts[0]!.text} as a number`, parts[0]!.money);
      const text = parts.map((p, i) => (p.money || !money(parts) ? p.text : operand(args[i], p, scope, next)));
      return said(text.join(name === '+' ? ' plus ' : ' times '), money(parts), true);
    }
    case '-': {
      const parts = each();
      if (parts.length === 1) return said(`minus ${parts[0]!.text}`, parts[0]!.money);
      const m = money(parts);
      const text = parts.map((p, i) => (m && typeof args[i] === 'number' ? `${p.text} minor units` : p.text));
      return said(text.join(' minus '), m, true);
    }
    case '%': {
      const [a, b] = each();
      return said(`the remainder of ${a?.text ?? 'nothing'} divided by ${b?.text ?? 'nothing'}`);
    }
    case 'min':
    case 'max': {
      const parts = each();
      return said(
        `the ${name === 'min' ? 'smallest' : 'largest'} of ${listOf(
          parts.map((p) => p.text),
          'and',
        )}`,
        money(parts),
      );
    }
    case 'cat':
      return said(
        `the text ${listOf(
          each().map((p) => p.text),
          'and',
        )} joined`,
      );
    case 'substr': {
      const [s, start, length] = each();
      const from = `${s?.text ?? 'nothing'} from position ${start?.text ?? '0'}`;
      return said(length ? `the part of ${from}, ${length.text} characters long` : `the part of ${from}`);
    }
    case 'merge':
      return said(
        `the list ${listOf(
          each().map((p) => p.text),
          'and',
        )} combined`,
      );
    case 'if':
      return choice(args, scope, next, (a) => value(a, scope, next).text);
    case 'and':
    case 'or':
    case '!':
    case '!!':
    case 'missing':
    case 'missing_some':
    case 'some':
    case 'all':
    case 'none':
    case '===':
    case '!==':
    case '<':
    case '<=':
    case '>':
    case '>=':
    case 'in':
      return said(`whether ${condition(expr, scope, depth).text}`);
    default:
      // outside the profile (refused at publish): shown as written
      return said(json(expr));
  }
}

/** The rule's `when` in plain English: when it matches. */
export function describeRule(expr: unknown): string {
  return condition(expr, 'context', 0).text;
}
