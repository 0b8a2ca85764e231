export * from './attestation.ts';
export { checkPackAgentMetadata, type AgentMetadataOutcome } from '../evidence/verify-pack-agent-metadata.ts';
