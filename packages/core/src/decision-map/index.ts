export * from './types.ts';
export * from './build-decision-map.ts';
