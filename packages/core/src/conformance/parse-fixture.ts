/**
 * Checks a fixture (or world) file's shape before anything runs: a kit with a typo must fail loudly at load, naming
 * the file's member, never pass by not testing. Unknown members are refused for the same reason.
 */
import { AarError, type FieldError } from '../errors/aar-error.ts';
import { PREDICATE_TESTS } from './check-predicate.ts';
import { FIXTURE_REQUIREMENTS, type Fixture, type FixtureWorld } from './fixture.ts';
import { isKitProfile } from './profiles.ts';

const FIXTURE_MEMBERS = [
  'fixture_id',
  'profile',
  'title',
  'description',
  'world',
  'vars',
  'keys',
  'requires',
  'steps',
  'cleanup',
];
const WORLD_MEMBERS = ['world', 'description', 'vars', 'keys', 'steps', 'cleanup'];
const STEP_MEMBERS = ['id', 'title', 'wait', 'request', 'expect', 'capture'];
const REQUEST_MEMBERS = [
  'method',
  'path',
  'query',
  'auth',
  'headers',
  'body',
  'raw_body',
  'idempotency_key',
  'sign',
  'repeat',
  'delegator_proof',
  'document_signature',
];
const SIGN_MEMBERS = ['key', 'keyid', 'created_offset', 'nonce', 'components', 'label'];
const EXPECT_MEMBERS = ['status', 'headers', 'body', 'pointers', 'problem', 'schema', 'verify'];
const VERIFY_KINDS = ['signed_document', 'evidence_pack', 'inclusion_proof', 'consistency_proof', 'audit_entry'];
const FIXTURE_ID = /^[a-z0-9_]+(\.[a-z0-9_-]+)+$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

type Obj = Record<string, unknown>;

class Checker {
  readonly errors: FieldError[] = [];
  error(path: string, message: string): void {
    this.errors.push({ path, message });
  }
  object(value: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.error(path, 'must be an object');
      return undefined;
    }
    for (const k of Object.keys(value)) if (!allowed.includes(k)) this.error(`${path}/${k}`, 'is not a known member');
    return value as Obj;
  }
  string(o: Obj, key: string, path: string, required = false): void {
    if (o[key] === undefined) {
      if (required) this.error(`${path}/${key}`, 'is required');
    } else if (typeof o[key] !== 'string' || o[key] === '') this.error(`${path}/${key}`, 'must be a non-empty string');
  }
}

export function parseFixture(value: unknown): Fixture {
  const c = new Checker();
  const o = c.object(value, '', FIXTURE_MEMBERS);
  if (o) {
    c.string(o, 'fixture_id', '', true);
    if (typeof o.fixture_id === 'string' && !FIXTURE_ID.test(o.fixture_id)) {
      c.error('/fixture_id', 'must be dotted lowercase, e.g. `core.problem.not-found`');
    }
    if (!isKitProfile(o.profile))
      c.error('/profile', 'must be one of the ten conformance profiles or a preview profile');
    c.string(o, 'title', '', true);
    c.string(o, 'description', '');
    c.string(o, 'world', '');
    if (
      o.requires !== undefined &&
      (!Array.isArray(o.requires) || o.requires.some((r) => !(FIXTURE_REQUIREMENTS as readonly unknown[]).includes(r)))
    ) {
      c.error('/requires', `must be an array of ${FIXTURE_REQUIREMENTS.join(', ')}`);
    }
    checkBody(c, o);
  }
  return done<Fixture>(c, value);
}

export function parseFixtureWorld(value: unknown): FixtureWorld {
  const c = new Checker();
  const o = c.object(value, '', WORLD_MEMBERS);
  if (o) {
    c.string(o, 'world', '', true);
    c.string(o, 'description', '');
    checkBody(c, o);
  }
  return done<FixtureWorld>(c, value);
}

function done<T>(c: Checker, value: unknown): T {
  if (c.errors.length > 0) {
    const first = c.errors[0]!;
    throw new AarError('invalid_request', `${first.path || 'fixture'}: ${first.message}`, { errors: c.errors });
  }
  return value as T;
}

function checkBody(c: Checker, o: Obj): void {
  if (o.vars !== undefined) c.object(o.vars, '/vars', Object.keys((o.vars as Obj | null) ?? {}));
  if (o.keys !== undefined && (!Array.isArray(o.keys) || o.keys.some((k) => typeof k !== 'string'))) {
    c.error('/keys', 'must be an array of names');
  }
  const ids = new Set<string>();
  checkSteps(c, o.steps, '/steps', ids);
  if (o.cleanup !== undefined) checkSteps(c, o.cleanup, '/cleanup', ids);
}

function checkSteps(c: Checker, steps: unknown, at: string, ids: Set<string>): void {
  if (!Array.isArray(steps)) {
    c.error(at, 'must be an array');
    return;
  }
  steps.forEach((step, i) => {
    const path = `${at}/${i}`;
    const s = c.object(step, path, STEP_MEMBERS);
    if (!s) return;
    c.string(s, 'id', path);
    if (typeof s.id === 'string') {
      if (ids.has(s.id)) c.error(`${path}/id`, `\`${s.id}\` is used twice`);
      ids.add(s.id);
    }
    checkRequest(c, s.request, `${path}/request`, ids);
    if (s.expect !== undefined) checkExpect(c, s.expect, `${path}/expect`);
    if (s.capture !== undefined) {
      const cap = c.object(s.capture, `${path}/capture`, Object.keys((s.capture as Obj | null) ?? {}));
      for (const [k, v] of Object.entries(cap ?? {})) {
        if (typeof v !== 'string' || (v !== '' && !v.startsWith('/')))
          c.error(`${path}/capture/${k}`, 'must be a JSON pointer');
      }
    }
    if (s.wait !== undefined) {
      const w = c.object(s.wait, `${path}/wait`, ['until', 'max_seconds', 'pad_ms']);
      if (w) {
        c.string(w, 'until', `${path}/wait`, true);
        if (typeof w.max_seconds !== 'number' || w.max_seconds <= 0) c.error(`${path}/wait/max_seconds`, 'must be > 0');
      }
    }
  });
}

function checkRequest(c: Checker, value: unknown, path: string, earlier: ReadonlySet<string>): void {
  const r = c.object(value, path, REQUEST_MEMBERS);
  if (!r) return;
  if (r.repeat !== undefined) {
    if (typeof r.repeat !== 'string' || !earlier.has(r.repeat)) c.error(`${path}/repeat`, 'must name an earlier step');
    return;
  }
  c.string(r, 'path', path, true);
  if (typeof r.path === 'string' && !r.path.startsWith('/')) c.error(`${path}/path`, 'must start with `/`');
  if (r.method !== undefined && !METHODS.includes(String(r.method)))
    c.error(`${path}/method`, 'must be an HTTP method in capitals');
  if (r.auth !== undefined && r.auth !== null && typeof r.auth !== 'string')
    c.error(`${path}/auth`, 'must be a string or null');
  if (r.body !== undefined && r.raw_body !== undefined) c.error(`${path}/raw_body`, 'cannot go with `body`');
  if (r.delegator_proof !== undefined) {
    const d = c.object(r.delegator_proof, `${path}/delegator_proof`, ['key', 'delegator']);
    if (d) {
      c.string(d, 'key', `${path}/delegator_proof`, true);
      c.string(d, 'delegator', `${path}/delegator_proof`, true);
    }
  }
  if (r.document_signature !== undefined) {
    const p = `${path}/document_signature`;
    const d = c.object(r.document_signature, p, ['key', 'keyid', 'member', 'document']);
    if (d) {
      for (const m of ['key', 'keyid']) c.string(d, m, p, true);
      c.string(d, 'member', p);
      if (typeof d.document !== 'object' || d.document === null) c.error(`${p}/document`, 'must be an object');
    }
    if (typeof r.body !== 'object' || r.body === null)
      c.error(`${path}/body`, 'document_signature needs an object body');
  }
  if (r.sign !== undefined) {
    const s = c.object(r.sign, `${path}/sign`, SIGN_MEMBERS);
    if (s) {
      c.string(s, 'key', `${path}/sign`, true);
      c.string(s, 'keyid', `${path}/sign`, true);
    }
  }
}

function checkExpect(c: Checker, value: unknown, path: string): void {
  const e = c.object(value, path, EXPECT_MEMBERS);
  if (!e) return;
  const statuses = Array.isArray(e.status) ? e.status : e.status === undefined ? [] : [e.status];
  if (statuses.some((s) => !Number.isInteger(s) || (s as number) < 100 || (s as number) > 599)) {
    c.error(`${path}/status`, 'must be an HTTP status or a list of them');
  }
  if (e.pointers !== undefined) {
    if (!Array.isArray(e.pointers)) c.error(`${path}/pointers`, 'must be an array');
    else
      e.pointers.forEach((p, i) => {
        const o = c.object(p, `${path}/pointers/${i}`, ['pointer', ...PREDICATE_TESTS]);
        if (o && (typeof o.pointer !== 'string' || (o.pointer !== '' && !o.pointer.startsWith('/')))) {
          c.error(`${path}/pointers/${i}/pointer`, 'must be a JSON pointer');
        }
        if (o && Object.keys(o).length < 2) c.error(`${path}/pointers/${i}`, 'tests nothing');
      });
  }
  if (e.problem !== undefined && e.problem !== true && typeof e.problem !== 'string') {
    c.error(`${path}/problem`, 'must be true or a problem code');
  }
  if (e.verify !== undefined) {
    if (!Array.isArray(e.verify)) c.error(`${path}/verify`, 'must be an array');
    else
      e.verify.forEach((v, i) => {
        const kinds = typeof v === 'object' && v !== null ? Object.keys(v).filter((k) => VERIFY_KINDS.includes(k)) : [];
        if (kinds.length !== 1) c.error(`${path}/verify/${i}`, `must name exactly one of ${VERIFY_KINDS.join(', ')}`);
      });
  }
}
