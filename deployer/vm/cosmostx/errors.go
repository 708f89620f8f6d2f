package cosmostx

import (
	"errors"
	"fmt"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/nodehttp"
)

// Phases of a tx's life at which a chain can refuse or fail it.
const (
	PhaseSimulate = "simulate" // the node ran it without a signature and it failed
	PhaseCheck    = "check"    // the node refused it at broadcast (CheckTx)
	PhaseDeliver  = "deliver"  // it was included in a block and failed
)

// TxError is a transaction the chain refused or failed, with the chain's own words.
type TxError struct {
	Phase     string
	Hash      string // empty in the simulate phase
	Height    int64  // set in the deliver phase
	Codespace string
	Code      uint32
	RawLog    string
}

func (e *TxError) Error() string {
	switch e.Phase {
	case PhaseSimulate:
		return "simulation failed: " + e.RawLog
	case PhaseCheck:
		return fmt.Sprintf("tx %s refused by the node: codespace %s code %d: %s", e.Hash, e.Codespace, e.Code, e.RawLog)
	}
	return fmt.Sprintf("tx %s failed at height %d: codespace %s code %d: %s", e.Hash, e.Height, e.Codespace, e.Code, e.RawLog)
}

func txError(phase string, res *sdk.TxResponse) *TxError {
	return &TxError{Phase: phase, Hash: res.TxHash, Height: res.Height, Codespace: res.Codespace, Code: res.Code, RawLog: res.RawLog}
}

// Attr lists the values of an event attribute in a tx result, in order.
func Attr(res *sdk.TxResponse, eventType, key string) []string {
	var out []string
	for _, ev := range res.Events {
		if ev.Type != eventType {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key == key {
				out = append(out, a.Value)
			}
		}
	}
	return out
}

// Log is the chain's own wording of a failure: a tx's raw log, or a REST error's message
// (a query's or a view's); false for anything else (an unreachable node).
func Log(err error) (string, bool) {
	var te *TxError
	var re *nodehttp.Error
	switch {
	case errors.As(err, &te):
		return te.RawLog, true
	case errors.As(err, &re):
		return re.Message, true
	}
	return "", false
}

// Where says where a failed tx stopped, for the end of a VM error's text: " (in
// simulation; nothing was sent)", " (tx HASH failed on chain)", or "" when err is no tx's.
func Where(err error) string {
	var te *TxError
	if errors.As(err, &te) {
		switch te.Phase {
		case PhaseSimulate:
			return " (in simulation; nothing was sent)"
		case PhaseDeliver:
			return " (tx " + te.Hash + " failed on chain)"
		}
	}
	return ""
}
