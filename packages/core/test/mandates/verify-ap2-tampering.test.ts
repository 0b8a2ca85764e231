import { describe, expect, it } from 'vitest';
import { findAp2CardNumber, verifyAp2Presentation } from '../../src/mandates/index.ts';
import { AUDIENCE, NOW, agentProviderChain, parties, userCredentialChain } from './support/build-chain.ts';

// Every single-character change to a valid presentation is refused: no byte of a chain is unprotected (JWS segments
// by their signatures, disclosures by their digests, each hop by the next hop's sd_hash, the last hop's disclosures by
// its own digests), and nothing an attacker writes makes the verifier throw instead of answering.
const p = await parties();
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function mutate(text: string, at: number, step: number): string {
  const current = text[at] ?? '';
  const replacement =
    step % 11 === 0 ? '~' : step % 13 === 0 ? '.' : ALPHABET[(ALPHABET.indexOf(current) + 1 + (step % 5)) % 64];
  return text.slice(0, at) + (replacement === current ? 'A' : replacement) + text.slice(at + 1);
}

describe('tampering', () => {
  it.each([
    ['trusted agent provider', async () => (await agentProviderChain(p)).presentation],
    ['user credential', async () => (await userCredentialChain(p)).presentation],
  ])('%s: every one-character change is refused, none throws', async (_, build) => {
    const presentation = await build();
    const options = { issuers: p.issuers, nowSeconds: NOW, audiences: [AUDIENCE] };
    expect((await verifyAp2Presentation(presentation, options)).ok).toBe(true);
    const accepted: number[] = [];
    for (let at = 0, step = 0; at < presentation.length; at += 5, step++) {
      const tampered = mutate(presentation, at, step);
      if (tampered === presentation) continue;
      const result = await verifyAp2Presentation(tampered, options);
      if (result.ok) accepted.push(at);
      else expect(result.errors.length).toBeGreaterThan(0);
    }
    expect(accepted).toEqual([]);
  });
});

describe('card numbers in mandate contents', () => {
  it('findAp2CardNumber names the disclosed claim holding one; the doc-style contents hold none', async () => {
    const clean = await agentProviderChain(p);
    const options = { issuers: p.issuers, nowSeconds: NOW, audiences: [AUDIENCE] };
    const ok = await verifyAp2Presentation(clean.presentation, options);
    expect(ok.ok && findAp2CardNumber(ok.value)).toBeUndefined();
    const careless = await agentProviderChain(p, {
      closed: { payment_instrument: { id: '4111 1111 1111 1111', type: 'card' } },
    });
    const result = await verifyAp2Presentation(careless.presentation, options);
    expect(result.ok && findAp2CardNumber(result.value)).toBe(
      '/presentation/hops/1/payload/delegate_payload/0/payment_instrument/id',
    );
  });
});
