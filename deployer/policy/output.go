package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
)

// ScoreFileName and ManifestName are the files WriteOutputs writes.
const (
	ScoreFileName = "scores.csv"
	ManifestName  = "manifest.json"
)

// Manifest says how a score file was made, so that anyone can make it again and compare:
// every field but Source is the same whichever source (node or indexer) read the chain.
type Manifest struct {
	Policy struct {
		Name   string            `json:"name"`
		Digest string            `json:"digest"`
		Params map[string]string `json:"params"`
	} `json:"policy"`
	Stage  uint64 `json:"stage"`
	Window struct {
		StartTime      uint64 `json:"start_time"`
		EndTime        uint64 `json:"end_time"`
		FirstBlock     uint64 `json:"first_block"`
		FirstBlockHash string `json:"first_block_hash"`
		LastBlock      uint64 `json:"last_block"`
		LastBlockHash  string `json:"last_block_hash"`
	} `json:"window"`
	Source struct {
		Kind   string `json:"kind"` // "node" or "indexer"
		Height uint64 `json:"height"`
	} `json:"source"`
	Records     map[string]int `json:"records"`
	InputDigest string         `json:"input_digest"`
	Scores      struct {
		File      string `json:"file"`
		Digest    string `json:"digest"`
		Addresses int    `json:"addresses"`
		Total     string `json:"total"`
	} `json:"scores"`
	// Merkle is the VIP snapshot of the scores: the root and total that `vipctl audit`
	// rebuilds from the contract once they are pushed and finalized.
	Merkle struct {
		BridgeID uint64 `json:"bridge_id"`
		Root     string `json:"root"`
		Total    string `json:"total_l2_score"`
	} `json:"merkle"`
}

func digest(b []byte) string {
	d := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(d[:])
}

// ScoreFile is the scores as a CSV score file (`address,score`, EIP-55 addresses, in
// address order), as `vipctl scores update --file` reads it.
func ScoreFile(ss []Score) ([]byte, error) { return ScoreFileOf(ss, scores.EVMCodec{}) }

// ScoreFileOf is the score file with addresses as codec writes them (a Cosmos rollup's:
// bech32 under its prefix).
func ScoreFileOf(ss []Score, codec scores.Codec) ([]byte, error) {
	entries := make([]scores.Entry, len(ss))
	for i, s := range ss {
		entries[i] = scores.Entry{Addr: codec.Encode(s.Addr[:]), Amount: s.Score}
	}
	var b bytes.Buffer
	if err := scores.Write(&b, entries, scores.CSV); err != nil {
		return nil, fmt.Errorf("write score file: %w", err)
	}
	return b.Bytes(), nil
}

// Run is one score computation, ready to write.
type Run struct {
	Stage, BridgeID uint64
	Span            Span
	SourceKind      string
	SourceHeight    uint64
	// Prefix is a Cosmos rollup's bech32 account prefix, which its score file's addresses
	// take ("init" on Initia's rollups); unused on EVM.
	Prefix string
}

// Outputs makes the score file and the manifest of a computed result.
func Outputs(p *Policy, run Run, res *Result) (scoreFile, manifest []byte, err error) {
	var codec scores.Codec = scores.EVMCodec{}
	if p.IsCosmos() {
		if run.Prefix == "" {
			return nil, nil, fmt.Errorf("write score file: a %s rollup's addresses need its bech32 prefix", p.VM)
		}
		codec = scores.Bech32Codec{Prefix: run.Prefix}
	}
	hashText := p.BlockHash
	scoreFile, err = ScoreFileOf(res.Scores, codec)
	if err != nil {
		return nil, nil, err
	}
	tree, err := Tree(run.BridgeID, run.Stage, res.Scores)
	if err != nil {
		return nil, nil, err
	}
	var m Manifest
	m.Policy.Name = p.Name
	m.Policy.Digest = "sha256:" + hex.EncodeToString(p.Digest[:])
	m.Policy.Params = p.Params
	m.Stage = run.Stage
	m.Window.StartTime, m.Window.EndTime = run.Span.Start, run.Span.End
	// Block hashes as the chain prints them: 0x hex on EVM, CometBFT's upper-case hex.
	m.Window.FirstBlock, m.Window.FirstBlockHash = run.Span.FirstBlock, hashText(run.Span.First.Hash)
	m.Window.LastBlock, m.Window.LastBlockHash = run.Span.LastBlock, hashText(run.Span.Last.Hash)
	m.Source.Kind, m.Source.Height = run.SourceKind, run.SourceHeight
	m.Records = res.Records
	m.InputDigest = "sha256:" + hex.EncodeToString(res.InputDigest[:])
	m.Scores.File = ScoreFileName
	m.Scores.Digest = digest(scoreFile)
	m.Scores.Addresses = len(res.Scores)
	m.Scores.Total = strconv.FormatUint(tree.Total, 10)
	root := tree.Root()
	m.Merkle.BridgeID = run.BridgeID
	m.Merkle.Root = "0x" + root.String()
	m.Merkle.Total = strconv.FormatUint(tree.Total, 10)
	// encoding/json writes map keys sorted: the manifest's bytes depend on its values only.
	manifest, err = json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("write manifest: %w", err)
	}
	return scoreFile, append(manifest, '\n'), nil
}

// Tree is the VIP snapshot tree of the scores (bridgeID and stage in every leaf): the tree
// the agent builds from the contract's stage when it holds exactly these scores.
func Tree(bridgeID, stage uint64, ss []Score) (*snapshot.Tree, error) {
	b := snapshot.NewBuilder(bridgeID, stage, len(ss))
	for _, s := range ss {
		if err := b.Add(s.Addr[:], s.Score); err != nil {
			return nil, fmt.Errorf("merkle tree: %w", err)
		}
	}
	tree, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("merkle tree: %w", err)
	}
	return tree, nil
}

// BlockHash is a block hash as the policy's chain prints it: 0x hex on EVM, CometBFT's
// upper-case hex on Move and Wasm.
func (p *Policy) BlockHash(h common.Hash) string {
	if p.IsCosmos() {
		return cometHash(h)
	}
	return h.Hex()
}

// WriteOutputs writes the score file and the manifest into dir (created if missing).
func WriteOutputs(dir string, scoreFile, manifest []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write outputs: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{ScoreFileName, scoreFile}, {ManifestName, manifest}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write outputs: %w", err)
		}
	}
	return nil
}

// SortedParams lists params as name=value, by name (for messages).
func SortedParams(p map[string]string) []string {
	out := make([]string, 0, len(p))
	for k, v := range p {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
