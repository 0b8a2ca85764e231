/**
 * AAR_PEP_URLS and the `@target-uri` candidates of a forwarded agent request (services/authzen/agent-request.ts): the
 * configured gateway bases only, joined with the forwarded path; the host the gateway names is never used; a path
 * outside every base's prefix gets candidates no signature made for a listed gateway matches.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { pepTargetUris } from '../../src/services/authzen/agent-request.ts';

describe('AAR_PEP_URLS', () => {
  it('is empty unless set, and each entry is an http(s) base URL without query or userinfo', () => {
    expect(loadConfig({}).pepUrls).toEqual([]);
    expect(loadConfig({ AAR_PEP_URLS: ' ' }).pepUrls).toEqual([]);
    expect(loadConfig({ AAR_PEP_URLS: 'https://gw.example.com/pay/, https://gw2.example.com' }).pepUrls).toEqual([
      'https://gw.example.com/pay',
      'https://gw2.example.com',
    ]);
    for (const bad of ['ftp://gw.example.com', 'https://gw.example.com/?x=1', 'https://u:p@gw.example.com', 'gw']) {
      expect(() => loadConfig({ AAR_PEP_URLS: bad }), bad).toThrow(ConfigError);
    }
    expect(() =>
      loadConfig({ AAR_PEP_URLS: Array.from({ length: 9 }, (_, i) => `https://g${i}.example`).join(',') }),
    ).toThrow(/AAR_PEP_URLS names 9 URLs/);
  });
});

describe('the target URIs of a forwarded request', () => {
  const bases = ['https://gw.example.com/pay', 'https://edge.example.net'];

  it('joins the forwarded path and query with each base it lies under, never with the forwarded host', () => {
    expect(pepTargetUris(bases, 'https://anything.example.org/pay/checkout?x=1')).toEqual([
      'https://gw.example.com/pay/checkout?x=1',
      'https://edge.example.net/pay/checkout?x=1',
    ]);
    expect(pepTargetUris(bases, 'https://gw.example.com/shop/buy')).toEqual(['https://edge.example.net/shop/buy']);
  });

  it('a path under no base prefix yields candidates no listed gateway signed', () => {
    expect(pepTargetUris(['https://gw.example.com/pay'], 'https://gw.example.com/payments')).toEqual([
      'https://gw.example.com/pay/payments',
    ]);
  });
});
