/**
 * What an MCP tool of `aar mcp` is: a name, words for the model, an input and an output JSON Schema (draft 2020-12,
 * MCP's default dialect since 2025-11-25), and a function from checked arguments to structured content. Arguments
 * are checked against the input schema before the function runs; a failure is a tool execution error naming the
 * field (`isError`, so the model can correct itself: SEP-1303), and nothing is sent to the service. The structured
 * content is checked against the output schema before it leaves: a tool can never answer outside its own contract.
 * A failure of the service (an RFC 9457 problem) or of the network becomes a tool execution error too; a decision,
 * deny included, is an answer, not an error.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { AarApiError, AarNetworkError } from '@aar/sdk';
import { findPan, maskLongDigitRuns } from '@aar/core';

export type JsonSchema = Record<string, unknown>;

export interface ToolContext {
  /** aborted when the client cancels the call or the connection goes */
  signal: AbortSignal;
  /** a progress notification, when the client asked for progress (`_meta.progressToken`) */
  progress(done: number, total: number | undefined, message: string): Promise<void>;
  /** over HTTP: the `Authorization` header of the request that carried this call (used, never logged or returned) */
  authorization?: string | undefined;
}

export interface ToolDefinition<In = Record<string, unknown>, Out = Record<string, unknown>> {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  run(args: In, ctx: ToolContext): Promise<ToolAnswer<Out>>;
}

export interface ToolAnswer<Out> {
  structured: Out;
  /** the same answer for a reader: plain sentences, no JSON */
  text: string;
}

/** A failure the tool reports to the model as is (`isError`), e.g. "that decision is not this agent's". */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}

export interface CallToolResultShape {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface CompiledTool {
  definition: ToolDefinition;
  checkInput: ValidateFunction;
  checkOutput: ValidateFunction;
}

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });

export function compileTool(definition: ToolDefinition): CompiledTool {
  return {
    definition,
    checkInput: ajv.compile(definition.inputSchema),
    checkOutput: ajv.compile(definition.outputSchema),
  };
}

/** `/amount: must be > 0`, one line per error; the path names the argument. */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const extra =
        e.keyword === 'additionalProperties'
          ? ` (\`${String((e.params as { additionalProperty?: unknown }).additionalProperty)}\`)`
          : e.keyword === 'enum'
            ? ` (${((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).join(', ')})`
            : '';
      return `${e.instancePath || '/'}: ${e.message ?? 'invalid'}${extra}`;
    })
    .join('; ');
}

export function toolError(text: string): CallToolResultShape {
  return { content: [{ type: 'text', text: maskLongDigitRuns(text) }], isError: true };
}

/** Runs a compiled tool on raw arguments: the whole of a `tools/call` once the tool is known. */
export async function runTool(tool: CompiledTool, rawArgs: unknown, ctx: ToolContext): Promise<CallToolResultShape> {
  const args = rawArgs ?? {};
  if (!tool.checkInput(args)) {
    return toolError(
      `Invalid arguments for ${tool.definition.name}: ${describeSchemaErrors(tool.checkInput.errors)}. ` +
        'Nothing was sent to the service.',
    );
  }
  const pan = findPan(args);
  if (pan !== undefined) {
    return toolError(
      `${tool.definition.name}: \`${maskLongDigitRuns(pan)}\` holds a card number; this server never handles one ` +
        '(the card is the token it was started with). Nothing was sent to the service.',
    );
  }
  let answer: ToolAnswer<Record<string, unknown>>;
  try {
    answer = await tool.definition.run(args as Record<string, unknown>, ctx);
  } catch (error) {
    return toolError(failureText(tool.definition.name, error));
  }
  if (!tool.checkOutput(answer.structured)) {
    // our own bug or an unexpected answer of the service: never hand out something the schema does not promise
    return toolError(
      `${tool.definition.name} produced an answer outside its output schema ` +
        `(${describeSchemaErrors(tool.checkOutput.errors)}); it is withheld.`,
    );
  }
  return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured };
}

export function failureText(tool: string, error: unknown): string {
  if (error instanceof ToolFailure) return `${tool}: ${error.message}`;
  if (error instanceof AarApiError) {
    const fields = error.errors.map((f) => `${f.path}: ${f.message}`).join('; ');
    const detail = typeof error.problem.detail === 'string' ? error.problem.detail : (error.problem.title ?? '');
    return (
      `${tool}: the service refused the request (${error.status} ${error.code}${detail ? `: ${detail}` : ''})` +
      `${fields ? ` [${fields}]` : ''}${error.requestId ? `; request id ${error.requestId}` : ''}.`
    );
  }
  if (error instanceof AarNetworkError) {
    return `${tool}: the service did not answer (${error.timedOut ? 'timed out' : 'no connection'}); nothing was decided.`;
  }
  return `${tool}: failed (${error instanceof Error ? error.message : String(error)}).`;
}
