// Conformance kit (CONTRACT section 14): the fixture format and its pure interpretation (templates, subset matches,
// pointer predicates), the ten profiles and the report shape. The HTTP runner lives in the server.
export * from './profiles.ts';
export * from './fixture.ts';
export * from './parse-fixture.ts';
export * from './resolve-template.ts';
export * from './match-subset.ts';
export * from './check-predicate.ts';
export * from './read-pointer.ts';
export * from './conformance-report.ts';
