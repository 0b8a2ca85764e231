export * from './base64.ts';
export * from './base64url.ts';
export * from './hex.ts';
export * from './utf8.ts';
