import { v5 as uuidV5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { nameBasedUuid, URL_NAMESPACE } from '../../src/compliance/name-based-uuid.ts';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('nameBasedUuid (RFC 9562 version 5)', () => {
  it('matches RFC 9562 appendix A.4 (www.example.com in the DNS namespace)', () => {
    expect(nameBasedUuid('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('agrees with the uuid package on our ids, and is a version 5, variant 10 UUID that OSCAL accepts', () => {
    for (const name of ['ns:compliance_projection:01a20b39-889d-768e-a36e-a95f133adb31', '#finding/Art. 12(1)', 'é']) {
      const ours = nameBasedUuid(name);
      expect(ours).toBe(uuidV5(name, URL_NAMESPACE));
      expect(ours).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
