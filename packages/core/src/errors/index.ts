export * from './aar-error.ts';
