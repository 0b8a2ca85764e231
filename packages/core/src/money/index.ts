export * from './currencies.ts';
export * from './money.ts';
export * from './money-arithmetic.ts';
export * from './money-format.ts';
