/**
 * Holds one answer to a step's expectations (docs/conformance.md "Expectations"): status, headers, RFC 9457 problem
 * shape, body subset, pointer predicates, JSON Schema, then the signatures and proofs. Every failed expectation is
 * reported, not only the first, so one run tells everything wrong with a step.
 */
import { checkPredicate, matchSubset, readPointer, type FixtureFailure, type Jwks, type StepExpect } from '@aar/core';
import { checkVerifications } from './check-verifications.ts';
import type { Exchange } from './http-exchange.ts';
import type { SchemaValidators } from './schema-validators.ts';

export type StepFailure = Omit<FixtureFailure, 'step' | 'step_id'>;

const PROBLEM_TYPE = /^application\/problem\+json\b/i;

export async function checkExpectations(
  res: Exchange,
  expect: StepExpect,
  schemas: SchemaValidators,
  jwks: () => Promise<Jwks>,
): Promise<StepFailure[]> {
  const out: StepFailure[] = [];
  if (expect.status !== undefined) {
    const allowed = Array.isArray(expect.status) ? expect.status : [expect.status];
    if (!allowed.includes(res.status)) {
      out.push({ message: `status ${res.status}, expected ${allowed.join(' or ')}: ${res.text.slice(0, 300)}` });
    }
  }
  for (const [name, want] of Object.entries(expect.headers ?? {})) {
    const got = res.headers.get(name);
    const w = typeof want === 'string' ? { equals: want } : want;
    if (w.absent === true && got !== null) out.push({ message: `header ${name} should be absent, got \`${got}\`` });
    if (w.absent !== true && got === null) out.push({ message: `header ${name} is missing` });
    if (got !== null && w.equals !== undefined && got !== w.equals) {
      out.push({ message: `header ${name} is \`${got}\`, expected \`${w.equals}\`` });
    }
    if (got !== null && w.matches !== undefined && !new RegExp(w.matches, 'iu').test(got)) {
      out.push({ message: `header ${name} is \`${got}\`, expected /${w.matches}/` });
    }
  }
  if (expect.problem !== undefined) out.push(...checkProblem(res, expect.problem));
  if (expect.body !== undefined) out.push(...matchSubset(res.json, expect.body));
  for (const predicate of expect.pointers ?? []) out.push(...checkPredicate(res.json, predicate));
  if (expect.schema !== undefined) {
    const { name, pointer } = typeof expect.schema === 'string' ? { name: expect.schema, pointer: '' } : expect.schema;
    const read = readPointer(res.json, pointer ?? '');
    const problems = read.found ? schemas.validate(name, read.value) : ['nothing at this pointer'];
    for (const p of problems) out.push({ pointer: pointer ?? '', message: `schema ${name}: ${p}` });
  }
  if (expect.verify !== undefined) out.push(...(await checkVerifications(res.json, expect.verify, jwks)));
  return out;
}

/** RFC 9457 with CONTRACT section 7's members: `type`, `title`, `status` (the HTTP status), `detail`, `code`. */
function checkProblem(res: Exchange, code: true | string): StepFailure[] {
  const type = res.headers.get('content-type') ?? '';
  if (!PROBLEM_TYPE.test(type)) return [{ message: `content-type is \`${type}\`, expected application/problem+json` }];
  const body = res.json as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null) return [{ message: 'the problem document is not a JSON object' }];
  const out: StepFailure[] = [];
  for (const member of ['type', 'title', 'detail', 'code']) {
    if (typeof body[member] !== 'string') out.push({ pointer: `/${member}`, message: 'problem member is missing' });
  }
  if (body.status !== res.status)
    out.push({ pointer: '/status', message: `is ${String(body.status)}, not the HTTP status ${res.status}` });
  if (typeof code === 'string' && body.code !== code) {
    out.push({ pointer: '/code', message: `is \`${String(body.code)}\`, expected \`${code}\`` });
  }
  return out;
}
