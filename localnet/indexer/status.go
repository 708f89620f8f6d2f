package indexer

// WithChainID sets the chain id GET /status reports (rollytics reports its chain's; the
// stand-in cannot learn a Cosmos chain id from JSON-RPC, so it reports "" unless told).
func WithChainID(id string) Option { return func(c *config) { c.chainID = id } }
