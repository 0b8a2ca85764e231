/**
 * A token's use is written once per UTC day and instance: the first authenticated request of a day writes
 * `api_token_usage`, the day's other requests write nothing (and wait for nothing), the next day's first writes again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.close();
  rt = undefined;
});

describe('token usage', () => {
  it('writes the first use of each day and nothing else', async () => {
    let now = new Date('2026-03-01T10:00:00.000Z');
    rt = await startTestRuntime({ clock: { now: () => new Date(now) } });
    const usage = async () =>
      (await rt!.ctx.store.db.selectFrom('api_token_usage').select(['last_used_at']).execute()).map(
        (row) => row.last_used_at,
      );
    const call = async () =>
      expect((await rt!.app.inject({ method: 'GET', url: '/v1/grants', headers: auth() })).statusCode).toBe(200);
    await call();
    expect(await usage()).toEqual(['2026-03-01T10:00:00.000Z']);
    now = new Date('2026-03-01T18:00:00.000Z');
    await call();
    expect(await usage()).toEqual(['2026-03-01T10:00:00.000Z']);
    now = new Date('2026-03-02T00:00:01.000Z');
    await call();
    expect(await usage()).toEqual(['2026-03-02T00:00:01.000Z']);
  });
});
