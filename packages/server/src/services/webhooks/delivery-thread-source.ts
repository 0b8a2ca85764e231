/**
 * The code of the webhook delivery thread (delivery-thread.ts), as plain CommonJS evaluated by `new Worker(..., {
 * eval: true })`: no module to resolve, so it runs the same from the sources, under tests and from dist/. It uses
 * node's built-ins only (node:http/https, node:crypto).
 * One round = one endpoint's due attempts in commit order, with their bodies (signed envelopes, made by the main
 * thread: delivery-signer.ts), handed over in chunks as the bodies are made ('round', then 'append' until `last`).
 * For each attempt, one after the other:
 * 1. the attempt's signature, `v1,<HMAC-SHA256>` per secret for shared_secret, `v1a,<Ed25519>` otherwise, over
 *    `{id}.{timestamp}.{body}`: made while the attempt before it is in flight (the receiver works meanwhile), and
 *    made again at sending time if that took longer than `resignAfterS` (a slow receiver);
 * 2. the POST, over the endpoint's keep-alive pool, connected to the address the main thread resolved and checked
 *    (the SSRF guard; `lookup` answers only that address); redirects are not followed (node:http never does), at
 *    most `maxBytes` of the answer are read, and the whole exchange has a deadline that destroys the request.
 * The round stops early when it is told to (stop(), a lost lease), once it has run `settleEveryMs` of the clock
 * (after at least one attempt), and after a 410. INVARIANT: the bytes sent are core's signWebhookDelivery for the
 * same inputs (test: webhook-delivery-thread.test.ts).
 * Attacker assumptions: receivers are hostile (slow, endless, redirecting, resetting); nothing they send reaches a
 * log. Keys and secrets arrive by postMessage, stay in this thread's memory and appear in no message or error.
 * The clock: the thread's own Date.now() when the service runs on the system clock, else it asks the main thread
 * for the context's clock before each attempt (tests move that clock).
 */
export const DELIVERY_THREAD_SOURCE = String.raw`
'use strict';
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
const http = require('node:http');
const https = require('node:https');

const keys = new Map(); // handle -> { keyObject, keyId }
const pools = new Map(); // pool key -> { url, agent }
const rounds = new Map(); // round id -> { cancelled, attempts, last, wake }
const clockWaits = new Map(); // request id -> resolve
let nextClockRequest = 1;

function poolOf(round) {
  const known = pools.get(round.pool);
  if (known && known.url === round.url && !known.agent.destroyed) return known.agent;
  if (known) known.agent.destroy();
  const secure = round.url.startsWith('https:');
  const Agent = secure ? https.Agent : http.Agent;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  pools.set(round.pool, { url: round.url, agent });
  return agent;
}

function now(round) {
  if (!round.askClock) return Promise.resolve(Date.now());
  return new Promise((resolve) => {
    const id = nextClockRequest++;
    clockWaits.set(id, resolve);
    parentPort.postMessage({ type: 'clock', id, round: round.id });
  });
}

function post(round, agent, headers, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(round.url);
    let done = false;
    let timedOut = false;
    let status = null;
    let retryAfter;
    let bytesRead = 0;
    const finish = (error) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      if (status !== null) resolve({ status, retryAfter, durationMs: elapsed(), error: null, bytesRead });
      else resolve({ status: null, retryAfter: undefined, durationMs: elapsed(), error, bytesRead: 0 });
    };
    const req = (url.protocol === 'https:' ? https : http).request({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: url.pathname + url.search,
      headers,
      agent,
      // the SSRF guard's pinned address: the socket connects there and nowhere else (a name is not resolved again)
      lookup: (_hostname, options, callback) => {
        if (options && options.all) callback(null, [{ address: round.address, family: round.family }]);
        else callback(null, round.address, round.family);
      },
    });
    const deadline = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
      finish('timeout');
    }, round.timeoutMs);
    req.on('error', (error) => {
      if (timedOut) return finish('timeout');
      const code = error && (error.code || (error.cause && error.cause.code));
      finish(typeof code === 'string' ? 'connection_failed: ' + code : 'connection_failed');
    });
    req.on('response', (res) => {
      status = res.statusCode;
      const header = res.headers['retry-after'];
      retryAfter = Array.isArray(header) ? header[0] : header;
      res.on('data', (chunk) => {
        bytesRead += chunk.length;
        if (bytesRead >= round.maxBytes) {
          bytesRead = round.maxBytes;
          res.destroy();
          req.destroy();
          finish(null);
        }
      });
      // a body cut short or timing out after the status line: the status decides
      res.on('end', () => finish(null));
      res.on('error', () => finish(null));
      res.on('close', () => finish(null));
    });
    req.end(body);
  });
}

async function runRound(round) {
  const state = rounds.get(round.id);
  const outcomes = [];
  const macKeys = round.macKeys.map((k) => crypto.createSecretKey(Buffer.from(k)));
  if (round.key) keys.set(round.keyHandle, { keyObject: round.key, keyId: round.keyId });
  const key = keys.get(round.keyHandle);
  if (!key || key.keyId !== round.keyId) throw new Error('unknown signing key');
  if (key.keyObject.asymmetricKeyType !== 'ed25519') throw new Error('not an ed25519 key');
  const agent = poolOf(round);
  const prepare = (attempt, at) => {
    const body = Buffer.from(attempt.body.buffer, attempt.body.byteOffset, attempt.body.byteLength);
    const timestamp = Math.floor(at / 1000);
    const content = Buffer.concat([Buffer.from(attempt.webhookId + '.' + timestamp + '.', 'utf8'), body]);
    let signature;
    if (round.profile === 'shared_secret') {
      signature = macKeys
        .map((k) => 'v1,' + crypto.createHmac('sha256', k).update(content).digest('base64'))
        .join(' ');
    } else {
      signature = 'v1a,' + crypto.sign(null, content, key.keyObject).toString('base64');
    }
    const headers = {
      'webhook-id': attempt.webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
      'content-type': round.contentType,
      'content-length': String(body.length),
      'user-agent': 'aar-webhooks/1',
    };
    if (round.profile !== 'shared_secret') headers['webhook-key-id'] = key.keyId;
    return { timestamp, headers, body };
  };
  // the attempt at i, once its body has arrived; undefined after the last one (or once cancelled)
  const attemptAt = async (i) => {
    while (i >= state.attempts.length && !state.last && !state.cancelled) {
      await new Promise((resolve) => (state.wake = resolve));
    }
    return state.cancelled ? undefined : state.attempts[i];
  };
  const started = await now(round);
  let next = null;
  for (let i = 0; ; i++) {
    const attempt = await attemptAt(i);
    if (!attempt) break;
    const at = i === 0 ? started : await now(round);
    if (i > 0 && at - started >= round.settleEveryMs) break;
    if (state.cancelled) break;
    let prepared = next !== null ? next : prepare(attempt, at);
    // signed while the attempt before was in flight: signed again if that took long (a slow receiver)
    if (Math.floor(at / 1000) - prepared.timestamp > round.resignAfterS) prepared = prepare(attempt, at);
    const pending = post(round, agent, prepared.headers, prepared.body);
    // the next attempt is signed now, while this one is in flight (its receiver works meanwhile)
    next = i + 1 < state.attempts.length ? prepare(state.attempts[i + 1], at) : null;
    const response = await pending;
    response.at = at;
    outcomes.push(response);
    if (response.status === 410) break;
  }
  return outcomes;
}

function wake(state) {
  const resolve = state.wake;
  state.wake = null;
  if (resolve) resolve();
}

parentPort.on('message', (message) => {
  if (message.type === 'round') {
    rounds.set(message.id, { cancelled: false, attempts: message.attempts, last: message.last, wake: null });
    runRound(message).then(
      (outcomes) => {
        rounds.delete(message.id);
        parentPort.postMessage({ type: 'done', id: message.id, outcomes });
      },
      (error) => {
        rounds.delete(message.id);
        // a message of ours (no key or secret is ever part of one)
        parentPort.postMessage({ type: 'failed', id: message.id, error: String((error && error.message) || error) });
      },
    );
  } else if (message.type === 'append') {
    const state = rounds.get(message.id);
    if (state) {
      for (const attempt of message.attempts) state.attempts.push(attempt);
      state.last = message.last;
      wake(state);
    }
  } else if (message.type === 'cancel') {
    const state = rounds.get(message.id);
    if (state) {
      state.cancelled = true;
      wake(state);
    }
  } else if (message.type === 'clock') {
    const resolve = clockWaits.get(message.id);
    clockWaits.delete(message.id);
    if (resolve) resolve(message.now);
  } else if (message.type === 'close') {
    for (const [pool, { agent }] of pools) {
      if (pool.startsWith(message.prefix)) {
        agent.destroy();
        pools.delete(pool);
      }
    }
  }
});
`;
