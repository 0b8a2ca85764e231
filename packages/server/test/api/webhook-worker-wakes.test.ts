/**
 * The webhook worker skips its claims while no endpoint is enabled (endpoint-presence.ts), and still finds one:
 * - created or enabled through this process: at once (the service tells the worker after its commit), however long
 *   the poll;
 * - enabled by another process (here: the row updated behind the service's back): within a poll.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { createApiCall, type ApiCall } from '../support/api-call.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
const receivers: WebhookReceiver[] = [];
const workers: WebhookWorker[] = [];

let api: ApiCall;

let merchants = 0;
const newMerchant = async () => {
  const res = await api('POST', '/v1/merchants', {
    id: `wake-${++merchants}`,
    display_name: 'W',
    category: '5411',
    jurisdiction: 'DE',
  });
  expect(res.status).toBe(201);
};

async function endpointFor(receiver: WebhookReceiver): Promise<string> {
  const res = await api('POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    profile: 'shared_secret',
    event_types: ['ns.merchant.created'],
  });
  expect(res.status).toBe(201);
  return res.body.endpoint_id as string;
}

beforeAll(async () => {
  rt = await startTestRuntime({ config: { webhookAllowInsecure: true } });
  await rt.app.listen({ host: '127.0.0.1', port: 0 });
  api = createApiCall(`http://127.0.0.1:${(rt.app.server.address() as { port: number }).port}`, ADMIN_TOKEN);
}, 60_000);

afterAll(async () => {
  for (const w of workers) await w.stop();
  for (const r of receivers) await r.close();
  await rt?.close();
});

describe('the webhook worker with no endpoint enabled', () => {
  it('claims an endpoint created or enabled here at once, however long its poll', async () => {
    const worker = new WebhookWorker(rt.ctx, { pollMs: 600_000 });
    workers.push(worker);
    await worker.start();
    await newMerchant(); // a wake with no endpoint: nothing to claim, the worker now knows there is none
    const receiver = await startReceiver();
    receivers.push(receiver);
    const id = await endpointFor(receiver);
    await newMerchant();
    await receiver.waitFor(1, 5_000);
    expect((await api('POST', `/v1/webhook-endpoints/${id}/disable`)).status).toBe(200);
    expect((await api('POST', `/v1/webhook-endpoints/${id}/enable`)).status).toBe(200);
    await newMerchant();
    await receiver.waitFor(2, 5_000);
    expect((await api('POST', `/v1/webhook-endpoints/${id}/disable`)).status).toBe(200);
    await worker.stop();
  }, 30_000);

  it('finds an endpoint another process enabled within a poll', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const id = await endpointFor(receiver);
    expect((await api('POST', `/v1/webhook-endpoints/${id}/disable`)).status).toBe(200);
    const worker = new WebhookWorker(rt.ctx, { pollMs: 200 });
    workers.push(worker);
    await worker.start();
    await newMerchant();
    // another instance enables it: this process's services are not told
    await sql`update webhook_endpoints set state = 'enabled', disabled_reason = null
      where endpoint_id = ${id}`.execute(rt.ctx.store.db);
    await newMerchant();
    const [delivery] = await receiver.waitFor(1, 5_000);
    expect(delivery).toBeDefined();
  }, 30_000);
});
