// Writes testdata/es-numbers.json: doubles (as IEEE 754 bit patterns in hex) and ECMAScript's String(n) for each,
// the reference FormatESNumber is checked against. Run with `node testdata/write-es-numbers.mjs`; deterministic.
import { writeFileSync } from 'node:fs';

const view = new DataView(new ArrayBuffer(8));
const cases = [];
const add = (n) => {
  view.setFloat64(0, n);
  cases.push({ bits: view.getBigUint64(0).toString(16).padStart(16, '0'), text: String(n) });
};
for (const n of [
  0,
  -0,
  1,
  -1,
  0.1,
  0.2,
  0.1 + 0.2,
  1e21,
  1e20,
  123456789012345680000,
  1e-6,
  1e-7,
  1.5e-7,
  5e-324,
  -5e-324,
  1.7976931348623157e308,
  2 ** 53,
  2 ** 53 + 2,
  9007199254740991,
  4.35,
  0.000001,
  333333333.3333333,
  1e22,
  1e23,
  295147905179352830000,
  4.5,
  2e-7,
  100,
  1234.5678,
  0.5,
  1 / 3,
  2 / 3,
  1e300,
  1.2e-300,
])
  add(n);
// xorshift64* for reproducible bit patterns across the whole double range
let x = 0x9e3779b97f4a7c15n;
const mask = (1n << 64n) - 1n;
const next = () => {
  x ^= x >> 12n;
  x ^= (x << 25n) & mask;
  x ^= x >> 27n;
  return (x * 0x2545f4914f6cdd1dn) & mask;
};
for (let i = 0; i < 3000; i++) {
  view.setBigUint64(0, next());
  const n = view.getFloat64(0);
  if (Number.isFinite(n)) add(n);
}
// integers and short decimals, the numbers money and ids actually use
for (let i = 0; i < 1000; i++)
  add(Number((Number(next() % 100000000n) / 10 ** Number(next() % 8n)).toFixed(Number(next() % 9n))));
writeFileSync(new URL('./es-numbers.json', import.meta.url), JSON.stringify(cases, null, 0) + '\n');
