export * from './canonical-json.ts';
export * from './decimal-parts.ts';
export * from './json-pointer.ts';
export * from './parse-strict-json.ts';
export * from './parse-strict-json-bytes.ts';
export { tryCanonicalJson } from './write-canonical-json.ts';
