package keys

import (
	"errors"
	"fmt"
	"os"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// KeystorePasswordEnv is where a keystore file's password is read from when set.
const KeystorePasswordEnv = "KEYSTORE_PASSWORD"

// FromKeystore decrypts a go-ethereum keystore JSON file (geth account new, clef, Foundry's
// cast wallet) with the password password gives.
func FromKeystore(file string, password PasswordFunc) (*Account, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("keystore %s: %w", file, err)
	}
	pass, err := password("password of keystore " + file)
	if err != nil {
		return nil, err
	}
	k, err := keystore.DecryptKey(data, pass)
	if err != nil {
		if errors.Is(err, keystore.ErrDecrypt) {
			return nil, fmt.Errorf("keystore %s: wrong password", file)
		}
		return nil, fmt.Errorf("keystore %s: %w", file, err)
	}
	return &Account{key: k.PrivateKey, addr: k.Address, source: "keystore " + file}, nil
}

// WriteKeystore encrypts the account into a new keystore file (mode 0600; an existing file is
// never overwritten) with scrypt cost n, p (keystore.StandardScryptN/P for real keys).
func WriteKeystore(a *Account, file string, password PasswordFunc, n, p int) error {
	pass, err := password("password for the new keystore " + file)
	if err != nil {
		return err
	}
	id, err := uuid.NewRandom()
	if err != nil {
		return fmt.Errorf("keystore id: %w", err)
	}
	data, err := keystore.EncryptKey(&keystore.Key{Id: id, Address: crypto.PubkeyToAddress(a.key.PublicKey), PrivateKey: a.key}, pass, n, p)
	if err != nil {
		return fmt.Errorf("encrypt keystore: %w", err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("keystore %s: %w (refusing to overwrite a key file)", file, err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("write keystore %s: %w", file, err)
	}
	return nil
}
