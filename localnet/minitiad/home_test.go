package minitiad

import (
	"strings"
	"testing"
)

// A key is set in its own section only, and a key the file lacks is an error that names it:
// a release whose config differs never leaves a listener on 0.0.0.0 unsaid.
func TestTOMLEdit(t *testing.T) {
	const file = `proxy_app = "tcp://127.0.0.1:26658"
[rpc]
laddr = "tcp://0.0.0.0:26657"
[p2p]
laddr = "tcp://0.0.0.0:26656"
`
	for _, tc := range []struct {
		name    string
		edit    tomlEdit
		want    string // a line the result holds
		keep    string // a line the result still holds
		wantErr string
	}{
		{"section key", tomlEdit{"config.toml", "p2p", "laddr", `"tcp://127.0.0.1:1"`}, `laddr = "tcp://127.0.0.1:1"`, `laddr = "tcp://0.0.0.0:26657"`, ""},
		{"top key", tomlEdit{"config.toml", "", "proxy_app", `"tcp://127.0.0.1:2"`}, `proxy_app = "tcp://127.0.0.1:2"`, `laddr = "tcp://0.0.0.0:26656"`, ""},
		{"missing key", tomlEdit{"config.toml", "rpc", "pprof_laddr", `"x"`}, "", "", `config.toml has no "pprof_laddr" in [rpc]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.edit.on([]byte(file))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tc.want) || !strings.Contains(string(b), tc.keep) {
				t.Fatalf("got\n%s\nwant %q and %q", b, tc.want, tc.keep)
			}
		})
	}
}
