/**
 * Turns the validator's errors (Ajv's, or TypeBox's when the TypeBox compiler is used: both carry `instancePath`,
 * `keyword` and `params`) into the contract's `errors: [{ path, message }]`.
 * A missing or unexpected property is reported at the property's own path, so the field is named.
 */
import { appendPointer, type FieldError } from '@aar/core';

interface ValidationIssue {
  instancePath?: unknown;
  keyword?: unknown;
  params?: unknown;
  message?: unknown;
}

/** Where each part of the request sits in an error path: the body is the root, like every other field error. */
const PREFIX_BY_CONTEXT: Readonly<Record<string, string>> = {
  body: '',
  querystring: '/query',
  params: '/params',
  headers: '/headers',
};

export function fieldErrorsFromValidation(issues: readonly unknown[], context: string | undefined): FieldError[] {
  const prefix = PREFIX_BY_CONTEXT[context ?? 'body'] ?? '';
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const push = (path: string, message: string): void => {
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ path, message });
  };
  for (const raw of issues) {
    const issue = (typeof raw === 'object' && raw !== null ? raw : {}) as ValidationIssue;
    const base = prefix + (typeof issue.instancePath === 'string' ? issue.instancePath : '');
    const params = (typeof issue.params === 'object' && issue.params !== null ? issue.params : {}) as Record<
      string,
      unknown
    >;
    if (issue.keyword === 'required') {
      for (const name of names(params.missingProperty, params.requiredProperties)) {
        push(appendPointer(base, name), 'is required');
      }
      continue;
    }
    if (issue.keyword === 'additionalProperties') {
      for (const name of names(params.additionalProperty, params.additionalProperties)) {
        push(appendPointer(base, name), 'is not allowed');
      }
      continue;
    }
    push(base, typeof issue.message === 'string' && issue.message !== '' ? issue.message : 'is invalid');
  }
  return out;
}

/** Ajv names one property (`missingProperty`), TypeBox several (`requiredProperties`). */
function names(one: unknown, many: unknown): string[] {
  if (typeof one === 'string') return [one];
  if (Array.isArray(many)) return many.filter((n): n is string => typeof n === 'string');
  return [];
}
