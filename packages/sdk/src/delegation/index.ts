export * from './sign-delegation-statement.ts';
