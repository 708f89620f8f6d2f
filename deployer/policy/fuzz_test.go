package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Parse never panics, and refuses with line-numbered Errors or accepts: whatever the bytes.
func FuzzParse(f *testing.F) {
	if src, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "policies", "demo-token.yaml")); err == nil {
		f.Add(src)
	}
	f.Add([]byte(header + okSources + "rules:\n  - {name: r, source: transfers, aggregate: count, user: args.from}\n"))
	f.Add([]byte("policy: 1\nname: x\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse(src, nil)
		if err == nil {
			if p == nil || len(p.Rules) == 0 || len(p.Sources) == 0 {
				t.Fatalf("accepted without rules or sources: %+v", p)
			}
			return
		}
		var es Errors
		if errors.As(err, &es) && len(es) == 0 {
			t.Fatal("empty Errors")
		}
	})
}
