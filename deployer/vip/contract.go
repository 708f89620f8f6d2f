package vip

// Deployment describes a deployed scoring contract.
type Deployment struct {
	VM        VM     `json:"vm"`
	ChainID   string `json:"chain_id"`
	Contract  string `json:"contract"`
	InitStage uint64 `json:"init_stage"`
	TxHash    string `json:"tx_hash"`
	Deployer  string `json:"deployer"`
	GasUsed   uint64 `json:"gas_used"`
	CodeID    uint64 `json:"code_id,omitempty"` // Wasm: the stored code instantiated
	// Status is StatusDeployed, StatusResumed (an earlier run's deploy finished) or
	// StatusAlready (nothing sent).
	Status string `json:"status,omitempty"`
}

// Deploy statuses (Deployment.Status).
const (
	StatusDeployed = "deployed"         // a deploy tx was sent by this run and landed
	StatusResumed  = "resumed"          // an earlier run's deploy tx was found and finished
	StatusAlready  = "already deployed" // a healthy deployment exists; nothing was sent
)

// StageInfo is a stage as the contract holds it.
type StageInfo struct {
	Stage      uint64 `json:"stage"`
	TotalScore uint64 `json:"total_score"`
	Finalized  bool   `json:"finalized"`
	Exists     bool   `json:"exists"`
}
