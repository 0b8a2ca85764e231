/**
 * The bookkeeping both signing threads share (per-key-batches.ts): one flush per turn, one batch per key, a key
 * sent once per thread, replies matched by id, and everything in flight refused at once when a thread dies.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PerKeyBatches } from '../../src/services/webhooks/per-key-batches.ts';

interface Req {
  n: number;
  reject: (error: Error) => void;
}
const key = (): { privateKey: KeyObject } => ({ privateKey: generateKeyPairSync('ed25519').privateKey });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('per-key batches of a signing thread', () => {
  it('flushes once per turn, with one batch per key holding that turn’s requests in order', async () => {
    let flushes = 0;
    const taken: { key: { privateKey: KeyObject }; ns: number[] }[][] = [];
    const batches = new PerKeyBatches<{ privateKey: KeyObject }, Req>(() => {
      flushes += 1;
      taken.push([...batches.take()].map((b) => ({ key: b.key, ns: b.requests.map((r) => r.n) })));
    });
    const a = key();
    const b = key();
    const req = (n: number): Req => ({ n, reject: () => undefined });
    batches.queue(a, req(1));
    batches.queue(b, req(2));
    batches.queue(a, req(3));
    expect(flushes).toBe(0); // not before the turn ends
    await turn();
    expect(flushes).toBe(1);
    expect(taken[0]).toEqual([
      { key: a, ns: [1, 3] },
      { key: b, ns: [2] },
    ]);
    batches.queue(b, req(4));
    await turn();
    expect(flushes).toBe(2);
    expect(taken[1]).toEqual([{ key: b, ns: [4] }]);
    expect([...batches.take()]).toEqual([]); // taken: nothing left
  });

  it('sends a key once per thread, and again after the thread is replaced', () => {
    const batches = new PerKeyBatches<{ privateKey: KeyObject }, Req>(() => undefined);
    const a = key();
    const b = key();
    const first = batches.handleOf(a.privateKey);
    expect(first.first).toBe(true);
    expect(batches.handleOf(a.privateKey)).toEqual({ handle: first.handle, first: false });
    expect(batches.handleOf(b.privateKey).handle).not.toBe(first.handle);
    batches.forgetHandles();
    expect(batches.handleOf(a.privateKey).first).toBe(true);
  });

  it('matches replies to their batch once, and refuses everything in flight when the thread dies', () => {
    const batches = new PerKeyBatches<{ privateKey: KeyObject }, Req>(() => undefined);
    const refused: [number, string][] = [];
    const req = (n: number): Req => ({ n, reject: (error) => refused.push([n, error.message]) });
    expect(batches.busy).toBe(false);
    const one = batches.send([req(1), req(2)]);
    const two = batches.send([req(3)]);
    expect(one).not.toBe(two);
    expect(batches.busy).toBe(true);
    expect(batches.answered(one)?.map((r) => r.n)).toEqual([1, 2]);
    expect(batches.answered(one)).toBeUndefined(); // a second reply for the same batch settles nothing
    expect(batches.answered(999)).toBeUndefined();
    batches.failAll(new Error('thread died'));
    expect(refused).toEqual([[3, 'thread died']]);
    expect(batches.busy).toBe(false);
    expect(batches.answered(two)).toBeUndefined();
  });
});
