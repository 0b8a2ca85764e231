/**
 * Derived components read target URIs from a bounded cache of parsed URLs: a URL seen before gives exactly what a
 * first parse gives, for every derived component, refusals included, and past the cache's bound (or for a long URL)
 * nothing changes but the cost.
 */
import { describe, expect, it } from 'vitest';
import { componentValue, DERIVED_COMPONENTS } from '../../src/http-signatures/component-value.ts';

const URLS = [
  'https://aar.example/v1/runtime/authorize',
  'http://127.0.0.1:8080/v1/x?b=2&a=1#frag',
  'HTTPS://AAR.EXAMPLE:443/p/%7Efoo/../bar?',
  'https://user:pw@aar.example/v1', // userinfo: refused
  'ftp://aar.example/file', // not http(s): refused
  'not a url',
  `https://aar.example/${'a'.repeat(5000)}?q=1`, // longer than what the cache keeps
];
const components = DERIVED_COMPONENTS.filter((name) => name !== '@method');

describe('target URI cache', () => {
  it('gives every derived component the same value the first time and every time after', () => {
    const first = URLS.map((url) => components.map((name) => componentValue(name, { method: 'GET', url })));
    // fill the cache past its bound with other URLs, then read every URL again, twice
    for (let i = 0; i < 600; i++) componentValue('@path', { method: 'GET', url: `https://aar.example/${i}` });
    for (let round = 0; round < 2; round++) {
      expect(URLS.map((url) => components.map((name) => componentValue(name, { method: 'GET', url })))).toEqual(first);
    }
    expect(first[1]![components.indexOf('@target-uri')]).toEqual({ value: 'http://127.0.0.1:8080/v1/x?b=2&a=1' });
    expect(first[3]![0]).toEqual({ failure: 'invalid_component_value' });
  });
});
