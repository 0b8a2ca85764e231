/**
 * Reads a recorded decision and makes sure it is this agent's: the MCP token may read every decision of the
 * deployment, but the model driving one agent sees that agent's only. Another agent's decision is refused with the
 * same words as an unknown one, so ids cannot be probed.
 */
import { AarApiError } from '@aar/sdk';
import type { DecisionReader } from '../decision-reader.ts';
import { ToolFailure, type ToolContext } from '../tool-kit.ts';

export async function ownDecision(
  reader: DecisionReader,
  id: string,
  ctx: ToolContext,
): Promise<Record<string, unknown>> {
  let record: Record<string, unknown>;
  try {
    record = await reader.decision(id, ctx);
  } catch (error) {
    if (error instanceof AarApiError && error.status === 404) throw notFound(id);
    throw error;
  }
  const request = record.request as { actor_entity_id?: unknown } | undefined;
  if (reader.agent !== undefined && request?.actor_entity_id !== reader.agent) throw notFound(id);
  return record;
}

function notFound(id: string): ToolFailure {
  return new ToolFailure(`no decision \`${id}\` of this agent`);
}
