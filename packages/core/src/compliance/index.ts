export * from './rule-pack.ts';
export * from './compliance-projection.ts';
export * from './resolve-pointer.ts';
export * from './expand-pointer-template.ts';
export * from './evaluate-predicate.ts';
export * from './project-compliance.ts';
export * from './name-based-uuid.ts';
export * from './oscal-assessment-results.ts';
