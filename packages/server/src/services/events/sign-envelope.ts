import { signDocument } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { EventEnvelope, UnsignedEventEnvelope } from './append-event.ts';

/** Signs a stored envelope with the current service key (CONTRACT section 4), at read or delivery time. */
export async function signEnvelope(ctx: AppContext, envelope: UnsignedEventEnvelope): Promise<EventEnvelope> {
  return (await signDocument(envelope, ctx.keys.current())) as EventEnvelope;
}
