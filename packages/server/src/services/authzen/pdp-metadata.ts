/**
 * The AuthZEN PDP metadata (CONTRACT section 20; AuthZEN 1.0 section 9): absolute endpoint URLs under this service's
 * first public URL (AAR_PUBLIC_URL, else the issuer URL), never under the Host a client sent.
 */
import type { AppContext } from '../../app-context.ts';

export function pdpMetadata(ctx: AppContext) {
  const base = ctx.config.publicUrls[0] ?? ctx.config.issuerUrl;
  return {
    policy_decision_point: base,
    access_evaluation_endpoint: `${base}/access/v1/evaluation`,
    access_evaluations_endpoint: `${base}/access/v1/evaluations`,
    search_subject_endpoint: `${base}/access/v1/search/subject`,
    search_resource_endpoint: `${base}/access/v1/search/resource`,
    search_action_endpoint: `${base}/access/v1/search/action`,
  };
}
