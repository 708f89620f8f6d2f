package devnode

// WithListen sets the CometBFT RPC and REST listen addresses (host:port; "" keeps the
// default, an ephemeral 127.0.0.1 port). The container engine has the node listen on fixed
// ports on all of its container's interfaces, which Docker then publishes.
func WithListen(rpcAddr, restAddr string) Option {
	return func(c *config) { c.rpcAddr, c.restAddr = rpcAddr, restAddr }
}
