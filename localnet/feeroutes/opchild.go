package feeroutes

import (
	"net/http"
)

// SequencerConsPower is the consensus power opchild gives a sequencer (its
// types.SequencerConsPower): a minitia's one genesis validator has it.
const SequencerConsPower = 1

// Validator is opinit.opchild.v1.Validator in the gateway's JSON.
type Validator struct {
	Moniker         string    `json:"moniker"`
	OperatorAddress string    `json:"operator_address"`
	ConsensusPubkey PubKeyAny `json:"consensus_pubkey"`
	ConsPower       int64     `json:"cons_power,string"`
}

// PubKeyAny is a consensus key as an Any in the gateway's JSON.
type PubKeyAny struct {
	Type string `json:"@type"`
	Key  []byte `json:"key"`
}

// Ed25519Key is an ed25519 consensus key as opchild's gateway shows it.
func Ed25519Key(key []byte) PubKeyAny {
	return PubKeyAny{Type: "/cosmos.crypto.ed25519.PubKey", Key: key}
}

// ValidatorsResponse is opinit.opchild.v1.QueryValidatorsResponse (one page holds them all).
type ValidatorsResponse struct {
	Validators []Validator `json:"validators"`
	Pagination struct {
		NextKey *string `json:"next_key"`
		Total   uint64  `json:"total,string"`
	} `json:"pagination"`
}

// Opchild is what a local rollup's OPinit child module would know: its validators (the
// rollup's sequencer, from its consensus state) and its bridge (none when the rollup is
// registered on no L1).
type Opchild struct {
	// Validators lists the validators; nil serves no validators route (a face with no
	// consensus of its own, as the embedded EVM's).
	Validators func(r *http.Request) ([]Validator, error)
	// NextL1Sequence is the sequence of the next deposit from the L1 (1 until one arrives:
	// opchild's DefaultL1SequenceStart); nil serves no next_l1_sequence route.
	NextL1Sequence func(r *http.Request) (uint64, error)
	// BridgeInfo is the bridge the rollup is registered under (nil, or a nil func: none).
	BridgeInfo func(r *http.Request) (*BridgeInfo, error)
}

// NextL1SequenceResponse is opinit.opchild.v1.QueryNextL1SequenceResponse in the gateway's
// JSON.
type NextL1SequenceResponse struct {
	NextL1Sequence uint64 `json:"next_l1_sequence,string"`
}

// NextL1SequenceQuery is the gRPC method of opchild's next L1 sequence.
const NextL1SequenceQuery = "/opinit.opchild.v1.Query/NextL1Sequence"

// L1SequenceStart is opchild's first L1 sequence (its DefaultL1SequenceStart).
const L1SequenceStart = 1

// RegisterOpchild adds opchild's validators, next_l1_sequence and bridge_info routes to mux.
// A rollup without a bridge answers bridge_info as a minitia that was never registered does:
// 404, code 5, "bridge info not found".
func RegisterOpchild(mux *http.ServeMux, o Opchild) {
	mux.HandleFunc("GET /opinit/opchild/v1/bridge_info", func(w http.ResponseWriter, r *http.Request) {
		var info *BridgeInfo
		if o.BridgeInfo != nil {
			var err error
			if info, err = o.BridgeInfo(r); err != nil {
				writeError(w, http.StatusInternalServerError, 2, err.Error())
				return
			}
		}
		if info == nil {
			writeError(w, http.StatusNotFound, 5, "bridge info not found")
			return
		}
		writeJSON(w, http.StatusOK, bridgeInfoJSON(*info))
	})
	if o.NextL1Sequence != nil {
		mux.HandleFunc("GET /opinit/opchild/v1/next_l1_sequence", func(w http.ResponseWriter, r *http.Request) {
			n, err := o.NextL1Sequence(r)
			if err != nil {
				writeError(w, http.StatusInternalServerError, 2, err.Error())
				return
			}
			writeJSON(w, http.StatusOK, NextL1SequenceResponse{NextL1Sequence: n})
		})
	}
	if o.Validators == nil {
		return
	}
	mux.HandleFunc("GET /opinit/opchild/v1/validators", func(w http.ResponseWriter, r *http.Request) {
		vals, err := o.Validators(r)
		if err != nil {
			writeError(w, http.StatusInternalServerError, 2, err.Error())
			return
		}
		var res ValidatorsResponse
		res.Validators = append([]Validator{}, vals...)
		res.Pagination.Total = uint64(len(vals))
		writeJSON(w, http.StatusOK, res)
	})
}
