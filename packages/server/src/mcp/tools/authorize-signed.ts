/**
 * `authorize_signed` (the `/mcp` endpoint of `aar serve`): the agent host signs its authorize request itself, as it
 * would to call `POST /v1/runtime/authorize` (RFC 9421 over `@method`, `@target-uri` = the service's public URL +
 * `/v1/runtime/authorize`, `content-digest`; the TypeScript SDK's createRequestSigner does it in two lines) and hands
 * the exact body and the three headers to this tool. The service verifies that signature exactly as on the REST
 * route (same key, window, nonce, target URIs): an MCP call is never weaker proof than a signed authorize, because
 * it is one. Unsigned or wrongly signed material is decided `deny` / `payload_signature_*`, recorded, as on REST.
 */
import type { ServiceReader } from '../service-reader.ts';
import type { ToolDefinition } from '../tool-kit.ts';
import { decisionSchema, decisionText, summarizeDecision } from './decision-shape.ts';

const MAX_BODY_CHARS = 64 * 1024;

export function authorizeSignedTool(service: ServiceReader): ToolDefinition {
  return {
    name: 'authorize_signed',
    title: 'Authorize a request the agent signed',
    description:
      'Decide an authorize request the agent signed itself (RFC 9421), as POST /v1/runtime/authorize would: give ' +
      'the exact JSON body that was signed and its signature-input, signature and content-digest headers. The ' +
      'answer is the recorded decision: allow_with_constraints, require_approval (then await_approval) or deny.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['body', 'signature_input', 'signature', 'content_digest'],
      properties: {
        body: { type: 'string', minLength: 2, maxLength: MAX_BODY_CHARS, description: 'the exact signed JSON text' },
        signature_input: { type: 'string', minLength: 1, maxLength: 4096 },
        signature: { type: 'string', minLength: 1, maxLength: 4096 },
        content_digest: { type: 'string', minLength: 1, maxLength: 512 },
      },
    },
    outputSchema: decisionSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(raw, ctx) {
      const args = raw as { body: string; signature_input: string; signature: string; content_digest: string };
      const answer = await service.authorize(
        {
          body: args.body,
          headers: {
            'signature-input': args.signature_input,
            signature: args.signature,
            'content-digest': args.content_digest,
          },
        },
        ctx,
      );
      const summary = summarizeDecision(answer);
      return { structured: summary, text: decisionText(summary) };
    },
  };
}
