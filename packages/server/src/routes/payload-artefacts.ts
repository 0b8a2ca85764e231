import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';

/** payload artefacts (CONTRACT 22); every operation `x-preview: true`. */
export async function payloadArtefactRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
