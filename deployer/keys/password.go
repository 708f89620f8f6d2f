package keys

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"
)

// PasswordFunc returns a password for a prompt such as "keystore password".
type PasswordFunc func(prompt string) (string, error)

// EnvOrTerminal reads the password from the environment variable env, else asks on the
// terminal without echo. Passwords never come from flags (they would end up in shell history
// and process lists).
func EnvOrTerminal(env string) PasswordFunc {
	return func(prompt string) (string, error) {
		if v, ok := os.LookupEnv(env); ok && v != "" {
			return v, nil
		}
		fd := int(os.Stdin.Fd())
		if !term.IsTerminal(fd) {
			return "", fmt.Errorf("%s: set %s, or run on a terminal to be asked", prompt, env)
		}
		fmt.Fprintf(os.Stderr, "%s: ", prompt)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(os.Stderr)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", prompt, err)
		}
		if len(b) == 0 {
			return "", errors.New(prompt + ": empty")
		}
		return string(b), nil
	}
}
