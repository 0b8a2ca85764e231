/** Pagination helpers and the events feed, against a local server that serves pages by cursor. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AarClient } from '../../src/index.ts';
import { json, startRecordingServer, type RecordingServer, type Responder } from '../support/recording-server.ts';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

const client = () => new AarClient({ baseUrl: server.base, token: 't', retry: { maxAttempts: 1 } });

/** pages of `items`, `size` per page, cursors `c1`, `c2`…; the query's `cursor` (or `after`) picks the page */
function pages(items: unknown[], size: number, param: 'cursor' | 'after', feed = false): Responder {
  return (req, res) => {
    const url = new URL(req.url, 'http://x');
    const at = url.searchParams.get(param);
    const start = at === null ? 0 : Number(at.slice(1));
    const slice = items.slice(start, start + size);
    const end = start + slice.length;
    const more = end < items.length;
    const body = feed
      ? { items: slice, next_cursor: `c${end}`, has_more: more }
      : { items: slice, next_cursor: more ? `c${end}` : null };
    json(200, body)(req, res, 0);
  };
}

describe('pagination', () => {
  it('walks every page of a list, passing next_cursor back and keeping the filters', async () => {
    const entities = Array.from({ length: 7 }, (_, i) => ({ entity_id: `ns:entity:agent:a${i}` }));
    server.respond(pages(entities, 3, 'cursor'));
    const seen: string[] = [];
    for await (const e of client().listEntitiesAll({ type: 'agent', limit: 3 })) seen.push(e.entity_id);
    expect(seen).toEqual(entities.map((e) => e.entity_id));
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/entities?type=agent&limit=3',
      '/v1/entities?type=agent&limit=3&cursor=c3',
      '/v1/entities?type=agent&limit=3&cursor=c6',
    ]);
  });

  it('walks a nested list (deliveries of one endpoint) through paginate()', async () => {
    const deliveries = Array.from({ length: 4 }, (_, i) => ({ event_id: `e${i}` }));
    server.respond(pages(deliveries, 2, 'cursor'));
    const seen = [];
    for await (const d of client().listWebhookDeliveriesAll('ns:webhook_endpoint:1', { status: 'failed' }))
      seen.push(d);
    expect(seen).toEqual(deliveries);
    expect(server.requests[1]!.url).toBe(
      '/v1/webhook-endpoints/ns%3Awebhook_endpoint%3A1/deliveries?status=failed&cursor=c2',
    );
  });

  it('stops with an error when the service repeats a cursor instead of looping forever', async () => {
    server.respond(json(200, { items: [{ token_id: 'x' }], next_cursor: 'same' }));
    const walk = async () => {
      for await (const _ of client().listTokensAll()) void _;
    };
    await expect(walk()).rejects.toThrow(/twice/);
  });
});

describe('events feed', () => {
  const events = Array.from({ length: 5 }, (_, i) => ({
    event_id: `ns:event:${i}`,
    event_type: 'ns.authority.revoked',
  }));

  it('yields every envelope in order and ends at the feed’s end with its cursor', async () => {
    server.respond(pages(events, 2, 'after', true));
    const feed = client().events({ eventType: 'ns.authority.revoked', limit: 2 });
    const seen = [];
    for await (const e of feed) seen.push(e.event_id);
    expect(seen).toEqual(events.map((e) => e.event_id));
    expect(feed.cursor).toBe('c5');
    expect(server.requests[0]!.url).toBe('/v1/events?event_type=ns.authority.revoked&limit=2');
    expect(server.requests.at(-1)!.url).toContain('after=c4');
  });

  it('exposes the exact resume point when the consumer stops mid-page: the last event id it received', async () => {
    server.respond(pages(events, 5, 'after', true));
    const feed = client().events();
    for await (const e of feed) if (e.event_id === 'ns:event:1') break;
    expect(feed.cursor).toBe('ns:event:1');

    // resuming passes that id as `after` (the service accepts an event id there)
    server.respond(json(200, { items: events.slice(2), next_cursor: 'c5', has_more: false }));
    const resumed = client().events({ after: feed.cursor });
    const rest = [];
    for await (const e of resumed) rest.push(e.event_id);
    expect(server.requests[0]!.url).toBe('/v1/events?after=ns%3Aevent%3A1');
    expect(rest).toEqual(['ns:event:2', 'ns:event:3', 'ns:event:4']);
  });

  it('follows the feed: polls at the interval once caught up, until aborted', async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    let polls = 0;
    server.respond((req, res) => {
      polls++;
      const body =
        polls === 2
          ? { items: [events[0]], next_cursor: 'c1', has_more: false }
          : { items: [], next_cursor: polls === 1 ? 'c0' : 'c1', has_more: false };
      json(200, body)(req, res, 0);
    });
    const c = new AarClient({
      baseUrl: server.base,
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 3) controller.abort();
      },
    });
    const feed = c.events({ follow: true, pollIntervalMs: 1_500, signal: controller.signal });
    const seen = [];
    for await (const e of feed) seen.push(e.event_id);
    expect(seen).toEqual(['ns:event:0']);
    expect(waits).toEqual([1_500, 1_500, 1_500]);
    expect(feed.cursor).toBe('c1');
    expect(server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('after'))).toEqual([
      null,
      'c0',
      'c1',
    ]);
  });
});
