package aar

import (
	"context"
	"net/url"
)

// Connectors and marketplace listings (CONTRACT section 15), and the console's read routes (section 17).

// Connectors lists the catalogue's manifests (`{ items }`), filtered by `family`, `connector_type`, `status` and
// `profile` when query sets them.
func (c *Client) Connectors(ctx context.Context, query url.Values) (Object, error) {
	return c.get(ctx, "/v1/connectors", query)
}

// GetConnector reads one `ns.connector_manifest.v1`.
func (c *Client) GetConnector(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/connectors/", id), nil)
}

// CreateListing registers a listing (write-once) and answers it signed, with its trust score.
func (c *Client) CreateListing(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/listings", body, opts...)
}

// GetListing reads one signed listing (`ns:listing:<id>`) with its trust score as of the current UTC hour.
func (c *Client) GetListing(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/listings/", id), nil)
}

// SearchListings walks the listings matching `sector`, `regime`, `jurisdiction`, `pricing_model`, `publisher_tier`,
// `q` and `min_score`; with `min_score` a page may hold fewer items than `limit`, even none, until the cursor ends.
func (c *Client) SearchListings(query url.Values) *Pager {
	return c.pager("/v1/listings/search", query, "cursor")
}

// SearchDecisions walks decision summaries, newest first, filtered by `actor_entity_id`, `principal_entity_id`,
// `reason`, `decision`, `since` and `until`.
func (c *Client) SearchDecisions(query url.Values) *Pager {
	return c.pager("/v1/decisions", query, "cursor")
}

// DecisionStats counts the decisions matching the same filters, per reason and per `bucket` (`hour` or `day`).
func (c *Client) DecisionStats(ctx context.Context, query url.Values) (Object, error) {
	return c.get(ctx, "/v1/decisions/stats", query)
}

// TokenSelf describes the credential the client authenticates with: `{ token_id, role, principal_entity_id }`.
func (c *Client) TokenSelf(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/tokens/self", nil)
}
