package minitia

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"cosmossdk.io/store/rootmulti"
	storetypes "cosmossdk.io/store/types"
	"github.com/cosmos/cosmos-sdk/baseapp"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/crypto/ed25519"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	"github.com/cometbft/cometbft/privval"
	cmttypes "github.com/cometbft/cometbft/types"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/vipharness/vipharness/localnet/memdb"
)

// keptChain is what a persistent Home remembers of its chain beside the stores and
// CometBFT's own files (genesis, validator key): the chain id and the funded mnemonics.
// Written last, whole and 0600: a Home without it holds no chain to resume.
type keptChain struct {
	ChainID   string   `json:"chain_id"`
	Mnemonics []string `json:"mnemonics"`
}

// keptFile is the file of keptChain in a Home.
const keptFile = "vipharness-chain.json"

// loadKept reads home's kept chain; nil when home holds none.
func loadKept(home string) (*keptChain, error) {
	b, err := os.ReadFile(filepath.Join(home, keptFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("minitia: read the kept chain: %w", err)
	}
	var k keptChain
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("minitia: %s in %s is not a kept chain's record: %w", keptFile, home, err)
	}
	return &k, nil
}

// saveKept writes home's kept chain whole (a temporary file synced, then renamed), 0600:
// it holds the funded mnemonics.
func saveKept(home string, k keptChain) error {
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(home, keptFile)
	f, err := os.OpenFile(path+".tmp", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("minitia: keep the chain: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("minitia: keep the chain: %w", err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("minitia: keep the chain: %w", err)
	}
	return nil
}

// appDB is the app's store: on disk in home's data folder when cfg.Persist (pebble:
// goleveldb reads an empty value back as none, and IAVL keeps an empty store's root as an
// empty value, so a query of a store never written fails), else in memory (memdb: its
// iterators hold no lock, which cosmos-db's MemDB's do, stopping views and commits for good).
func appDB(cfg Config, home string) (dbm.DB, error) {
	if !cfg.Persist {
		return memdb.New(), nil
	}
	db, err := dbm.NewDB("application", dbm.PebbleDBBackend, filepath.Join(home, "data"))
	if err != nil {
		return nil, fmt.Errorf("minitia: open the app's store in %s: %w", home, err)
	}
	return db, nil
}

// chainStart is the genesis and validator of the node: those of the chain its Home keeps
// (cfg.Persist), or new ones (kept in Home when cfg.Persist).
func (n *Node) chainStart(cfg Config, cc *cmtcfg.Config) (*privval.FilePV, error) {
	if cfg.Persist {
		kept, err := loadKept(n.home)
		if err != nil {
			return nil, err
		}
		if kept != nil {
			return n.resume(cfg, cc, kept)
		}
	}
	valKey := ed25519.GenPrivKey()
	mnemonics, err := genesisMnemonics(cfg)
	if err != nil {
		return nil, err
	}
	if n.gen, err = newGenesis(cfg, n.app, valKey, mnemonics); err != nil {
		return nil, err
	}
	pv := privval.NewFilePV(valKey, cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	pv.Save()
	if !cfg.Persist {
		return pv, nil
	}
	if err := n.gen.doc.SaveAs(cc.GenesisFile()); err != nil {
		return nil, fmt.Errorf("minitia: keep the genesis: %w", err)
	}
	return pv, saveKept(n.home, keptChain{ChainID: cfg.ChainID, Mnemonics: mnemonics})
}

// resume takes the chain kept in the node's Home: its genesis, validator key and funded
// accounts. The validator's last-sign state starts empty: a single local validator has
// no one to double-sign against.
func (n *Node) resume(cfg Config, cc *cmtcfg.Config, kept *keptChain) (*privval.FilePV, error) {
	if kept.ChainID != cfg.ChainID {
		return nil, fmt.Errorf("minitia: %s keeps chain %s, not %s", n.home, kept.ChainID, cfg.ChainID)
	}
	doc, err := cmttypes.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		return nil, fmt.Errorf("minitia: the kept chain's genesis: %w", err)
	}
	b, err := os.ReadFile(cc.PrivValidatorKeyFile())
	if err != nil {
		return nil, fmt.Errorf("minitia: the kept chain's validator key: %w", err)
	}
	var key privval.FilePVKey
	if err := cmtjson.Unmarshal(b, &key); err != nil {
		return nil, fmt.Errorf("minitia: the kept chain's validator key file does not parse: %w", err)
	}
	funded, also, err := fundedAccounts(cfg, kept.Mnemonics)
	if err != nil {
		return nil, err
	}
	n.gen, n.resumed = &genesis{doc: doc, funded: funded, also: also}, true
	n.cfg.GenesisTime = doc.GenesisTime
	pv := privval.NewFilePV(key.PrivKey, cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	pv.Save()
	return pv, nil
}

// Resumed reports whether the node resumed a chain its Home kept (Config.Persist), rather
// than starting a new one.
func (n *Node) Resumed() bool { return n.resumed }

// addingStores loads a chain kept in db by an earlier version of the app, which mounted
// fewer stores, as a chain upgrade adds one: a store its last commit lacks is added empty
// (StoreUpgrades). A fresh db, or one with every store, loads as it is.
func addingStores(db dbm.DB, keys map[string]*storetypes.KVStoreKey) baseapp.StoreLoader {
	return func(ms storetypes.CommitMultiStore) error {
		rs, ok := ms.(*rootmulti.Store)
		ver := rootmulti.GetLatestVersion(db)
		if !ok || ver == 0 {
			return ms.LoadLatestVersion()
		}
		info, err := rs.GetCommitInfo(ver)
		if err != nil {
			return fmt.Errorf("minitia: the kept chain's last commit: %w", err)
		}
		kept := map[string]bool{}
		for _, si := range info.StoreInfos {
			kept[si.Name] = true
		}
		var added []string
		for name := range keys {
			if !kept[name] {
				added = append(added, name)
			}
		}
		if len(added) == 0 {
			return ms.LoadLatestVersion()
		}
		slices.Sort(added)
		return ms.LoadLatestVersionAndUpgrade(&storetypes.StoreUpgrades{Added: added})
	}
}
