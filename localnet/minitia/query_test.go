package minitia

import (
	"encoding/base64"
	"testing"
)

// x/wasm's params over abci_query gain max_wasm_size as Initia's fork encodes them: the
// bytes a real miniwasm v1.2.11 answers, from upstream wasmd's answer here.
func TestWasmParamsQueryAnswersAsInitiasFork(t *testing.T) {
	for _, tc := range []struct{ name, upstream, want string }{
		{"everybody uploads and instantiates", "CgYKAggDEAM=", "CgoKAggDEAMYgIAy"},
		{"no params at all", "CgA=", "CgQYgIAy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := base64.StdEncoding.DecodeString(tc.upstream)
			if got := base64.StdEncoding.EncodeToString(withMaxWasmSizeProto(in)); got != tc.want {
				t.Fatalf("%s, want %s", got, tc.want)
			}
		})
	}
	// A value that is no protobuf message goes out as it is.
	if got := withMaxWasmSizeProto([]byte{0xff}); string(got) != "\xff" {
		t.Fatalf("%x", got)
	}
}
