package registry

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"
)

func TestCheckLogo(t *testing.T) {
	var small bytes.Buffer
	if err := png.Encode(&small, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	if err := CheckLogo(small.Bytes()); err != nil {
		t.Fatalf("a small PNG is refused: %v", err)
	}
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"PNG signature only": {[]byte("\x89PNG\r\n\x1a\n a small logo"), "not a PNG image"},
		"a JPEG":             {[]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "looks like image/jpeg"},
		"over 100 KB":        {make([]byte, MaxImageBytes+1), "over the registry's limit of 102400"},
	} {
		if err := CheckLogo(tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %q", name, err, tc.want)
		}
	}
}

// The profile rules and the minievm-only JSON-RPC are refused as inputs, naming the input.
func TestBuildRefusesProfileRulesAndJSONRPC(t *testing.T) {
	move := sampleLive()
	move.Minitia, move.EVMChainID = "minimove", 0
	for name, tc := range map[string]struct {
		live        Live
		edit        func(*Inputs)
		input, want string
	}{
		"no category":         {sampleLive(), func(in *Inputs) { in.Category = "" }, "category", "needs one of DeFi"},
		"description 141":     {sampleLive(), func(in *Inputs) { in.Description = strings.Repeat("d", 141) }, "description", "141 characters"},
		"no logo":             {sampleLive(), func(in *Inputs) { in.Logo = "" }, "logo", "needs the https URL of a PNG"},
		"status":              {sampleLive(), func(in *Inputs) { in.Status = "killed" }, "status", "live, upcoming, hidden"},
		"json-rpc on move":    {move, func(in *Inputs) { in.JSONRPCWS = nil }, "public-json-rpc", "a minimove, not minievm"},
		"json-rpc-ws on move": {move, func(in *Inputs) { in.JSONRPC = nil }, "public-json-rpc-ws", "a minimove, not minievm"},
	} {
		in := sampleInputs()
		tc.edit(&in)
		_, err := Build(tc.live, in)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Input != tc.input || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %s refused naming %q", name, err, tc.input, tc.want)
		}
	}
}
