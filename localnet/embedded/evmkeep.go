package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vipharness/vipharness/deployer/keys"
)

// devMnemonicFile keeps the EVM chain's dev mnemonic in its data dir.
const devMnemonicFile = "vipharness-dev-mnemonic"

// devMnemonic is the mnemonic dataDir keeps (kept), else a fresh one, kept there (0600,
// written whole) when dataDir is set.
func devMnemonic(dataDir string) (m string, kept bool, err error) {
	if dataDir == "" {
		m, err = newDevMnemonic()
		return m, false, err
	}
	path := filepath.Join(dataDir, devMnemonicFile)
	b, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(b)), true, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, fmt.Errorf("read the kept dev mnemonic: %w", err)
	}
	if m, err = newDevMnemonic(); err != nil {
		return "", false, err
	}
	return m, false, keepDevMnemonic(dataDir, path, m)
}

// keepDevMnemonic writes m to path in dataDir, whole and 0600.
func keepDevMnemonic(dataDir, path, m string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("keep the dev mnemonic: %w", err)
	}
	if err := os.WriteFile(path+".tmp", []byte(m+"\n"), 0o600); err != nil {
		return fmt.Errorf("keep the dev mnemonic: %w", err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("keep the dev mnemonic: %w", err)
	}
	return nil
}

// Resumed reports whether the rollup resumed the chain its data dir kept (WithDataDir).
func (r *GethRollup) Resumed() bool { return r.resumed }

func newDevMnemonic() (string, error) {
	m, err := keys.NewMnemonic()
	if err != nil {
		return "", fmt.Errorf("generate dev mnemonic: %w", err)
	}
	return m, nil
}
