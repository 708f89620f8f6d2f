package indexer

import "context"

// PathStatus is rollytics' GET /status: the indexer's version, chain and the newest block
// it has collected.
const PathStatus = "/status"

// Status is the reply of GET /status.
type Status struct {
	Version    string `json:"version"`
	CommitHash string `json:"commit_hash"`
	ChainID    string `json:"chain_id"`
	// Height is the newest block the indexer has collected.
	Height int64 `json:"height"`
}

// Status reads the indexer's status: how far it has indexed.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.get(ctx, PathStatus, nil, &s)
	return s, err
}
