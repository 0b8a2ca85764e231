/**
 * Issue 8, point 7, over a real socket, once per database: a pull consumer of GET /v1/events reads to the end, the
 * service writes more events, and the consumer resumes from the cursor it was given at the end, or from the last
 * event_id it processed, and gets exactly the new events. Errors name `/query/after`; `limit` holds to 1..500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

interface Envelope {
  event_id: string;
  event_type: string;
  subject_ref: string;
}

interface FeedPage {
  items: Envelope[];
  next_cursor: string;
  has_more: boolean;
}

describe.each(dialects)('the events feed resumes on %s', (dialect) => {
  let rt: TestRuntime;
  let base: string;
  let created = 0;

  const get = async (query: string) => {
    const res = await fetch(`${base}/v1/events${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const page = async (query: string): Promise<FeedPage> => {
    const res = await get(query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as FeedPage;
  };
  /** Reads from `after` to the end, `limit` at a time; returns what it saw and the position reached. */
  const readToEnd = async (after: string | undefined, limit: number) => {
    const seen: Envelope[] = [];
    let cursor = after;
    for (let guard = 0; guard < 1000; guard++) {
      const p = await page(`?limit=${limit}${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`);
      expect(typeof p.next_cursor).toBe('string');
      seen.push(...p.items);
      cursor = p.next_cursor;
      if (!p.has_more) return { seen, cursor };
    }
    throw new Error('the feed never ended');
  };
  const createPeople = async (n: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = `resume-${++created}`;
      const res = await fetch(`${base}/v1/entities`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'person', id, display_name: 'Resume' }),
      });
      expect(res.status).toBe(201);
      ids.push(`ns:entity:person:${id}`);
    }
    // On PostgreSQL the feed shows an event once every older transaction of the database has ended (docs/events.md):
    // other suites sharing the server can hold that back for a moment, so wait, as a polling consumer would.
    for (let attempt = 0; attempt < 200; attempt++) {
      const visible = new Set((await readToEnd(undefined, 500)).seen.map((e) => e.subject_ref));
      if (ids.every((id) => visible.has(id))) return ids;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the feed never showed ${ids.join(', ')}`);
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => rt?.close());

  it('returns a cursor for the position reached, even at the end and on an empty feed page', async () => {
    const start = await readToEnd(undefined, 500);
    const atEnd = await page(`?after=${encodeURIComponent(start.cursor)}`);
    expect(atEnd).toEqual({ items: [], next_cursor: start.cursor, has_more: false });
  });

  it('resumes from the end cursor and from the last event_id with exactly the new events', async () => {
    await createPeople(3);
    const first = await readToEnd(undefined, 2);
    const lastSeen = first.seen.at(-1)!;
    expect(first.seen.length).toBeGreaterThanOrEqual(3);

    const added = await createPeople(5);
    const fromCursor = await readToEnd(first.cursor, 2);
    const fromEventId = await readToEnd(lastSeen.event_id, 2);
    for (const resumed of [fromCursor, fromEventId]) {
      expect(resumed.seen.map((e) => e.subject_ref)).toEqual(added);
      expect(resumed.seen.every((e) => e.event_type === 'ns.entity.created')).toBe(true);
    }
    // both ways of resuming end at the same position, and nothing was skipped or repeated overall
    expect(fromEventId.cursor).toBe(fromCursor.cursor);
    const all = await readToEnd(undefined, 500);
    expect(all.seen.map((e) => e.event_id)).toEqual([...first.seen, ...fromCursor.seen].map((e) => e.event_id));
  });

  it('resumes from an event_id in the middle of the feed, also with an event_type filter', async () => {
    const all = (await readToEnd(undefined, 500)).seen;
    const middle = Math.floor(all.length / 2);
    const rest = await readToEnd(all[middle]!.event_id, 3);
    expect(rest.seen.map((e) => e.event_id)).toEqual(all.slice(middle + 1).map((e) => e.event_id));
    const created = await readToEnd(all[middle]!.event_id, 500);
    const filtered = await page(`?event_type=ns.entity.created&after=${encodeURIComponent(all[middle]!.event_id)}`);
    expect(filtered.items.map((e) => e.event_id)).toEqual(
      created.seen.filter((e) => e.event_type === 'ns.entity.created').map((e) => e.event_id),
    );
  });

  it('names /query/after in its errors, never /query/cursor', async () => {
    for (const after of [
      'not-a-cursor!',
      Buffer.from('x12').toString('base64url'),
      'ns:event:not-a-uuid',
      'ns:event:01890a5d-ac96-774b-bcce-b302099a8057', // well formed, but no such event
    ]) {
      const res = await get(`?after=${encodeURIComponent(after)}`);
      expect(res.status, after).toBe(400);
      expect(res.body.errors).toEqual([{ path: '/query/after', message: expect.any(String) }]);
    }
    const tooLong = await get(`?after=${'a'.repeat(65)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].path).toBe('/query/after');
  });

  it('takes exactly the limits the OpenAPI document states', async () => {
    for (const limit of ['1', '9', '10', '99', '100', '499', '500']) {
      expect((await get(`?limit=${limit}`)).status, limit).toBe(200);
    }
    for (const limit of ['0', '501', '1000', '9999', '-1', '1.5', '01', 'ten', '']) {
      const res = await get(`?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.errors[0].path).toBe('/query/limit');
    }
    const spec = await (await fetch(`${base}/v1/openapi.json`)).json();
    const parameters = spec.paths['/v1/events'].get.parameters as { name: string; schema: Record<string, unknown> }[];
    const limit = parameters.find((p) => p.name === 'limit')!;
    const pattern = new RegExp(limit.schema.pattern as string);
    for (let n = -2; n <= 1002; n++) expect(pattern.test(String(n)), String(n)).toBe(n >= 1 && n <= 500);
    const response = spec.paths['/v1/events'].get.responses['200'].content['application/json'].schema;
    expect(response.required).toEqual(expect.arrayContaining(['items', 'next_cursor', 'has_more']));
    expect(response.properties.next_cursor.type).toBe('string');
  });
});
