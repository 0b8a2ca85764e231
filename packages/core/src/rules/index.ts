export * from './types.ts';
export * from './profile.ts';
export * from './evaluate-rule.ts';
export * from './describe-rule.ts';
