package vip

// Spec is what a VM means to the code around it, declared once beside that VM's package
// (evm.Spec, move.Spec, wasm.Spec) and found by the VM (vip.Describe, once its driver is linked): callers ask the
// Spec instead of comparing VMs.
type Spec struct {
	VM VM
	// Minitia is the rollup's node_info application_version.name (minievm, minimove,
	// miniwasm); NodeNames are other names a node of this VM gives (wasmd's "wasm").
	Minitia   string
	NodeNames []string
	// Label is the VM as Initia's docs and forum posts write it ("MiniEVM").
	Label string
	// VMType is the L1 vip::register's vm_type: MOVEVM 0, WASMVM 1, EVM 2.
	VMType uint64
	// KeyType is the kind of the account keys the VM's tools derive from a mnemonic by
	// default (its CoinType the BIP44 coin type they are derived with).
	KeyType KeyType
	// Cosmos is true when the contract is driven through Cosmos txs (CometBFT RPC and REST
	// endpoints, fees in a denom, txs found through the node's tx index); false when it is
	// driven through EVM JSON-RPC (fees in wei).
	Cosmos bool
	// OneContractPerDeployer is true when an account can hold only one scoring contract
	// (a Move module is named by its publisher's address).
	OneContractPerDeployer bool
	// Artifact names the build a deploy takes, for flag help and errors; ReadArtifact
	// checks a build's bytes and returns the code to deploy.
	Artifact     string
	ReadArtifact func(b []byte) ([]byte, error)
	// CheckContract checks a scoring contract's address as the VM writes it.
	CheckContract func(addr string) error
	// Gas is the estimate preflight checks balances against, measured on the real VM.
	Gas GasEstimate
	// Reasons maps each refusal the conformance checks provoke ("not allowed", "finalized",
	// "missing stage", "length mismatch") to the name the official interface gives it, and
	// "refinalize" to how our own contract refuses a second finalize (the official EVM one
	// accepts it, changing nothing); a refusal the VM's messages cannot express has no entry.
	// Events are the event names of an "update" and a "finalize".
	Reasons map[string]string
	Events  map[string][]string
}

// GasEstimate is a deploy's gas and a push's fixed and per-new-address gas.
type GasEstimate struct {
	Deploy, Fixed, PerAddress uint64
}
