export * from './find-pan.ts';
export * from './luhn.ts';
