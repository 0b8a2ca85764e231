/** The profile CONTRACT section 7 fixes for agent requests to `POST /v1/runtime/authorize`. */

/** The covered components every agent request signature must include. */
export const AGENT_REQUEST_COMPONENTS: readonly string[] = ['@method', '@target-uri', 'content-digest'];

/** Freshness window, either way, inclusive, in whole seconds: |floor(now) - created| <= 300 is fresh. */
export const DEFAULT_SIGNATURE_WINDOW_SECONDS = 300;

/** The label our signer uses; verifiers accept any label. */
export const DEFAULT_SIGNATURE_LABEL = 'sig1';
