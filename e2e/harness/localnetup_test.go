package harness

import (
	"reflect"
	"testing"
)

func TestParseEnv(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
		wantErr  bool
	}{
		{"exports, quoted and not", "export A=1\nexport B=\"x y\\\"z\"\n", []string{"A=1", `B=x y"z`}, false},
		{"comments and blank lines left out", "# the L1\n\nexport A=1\n#export B=2\n", []string{"A=1"}, false},
		{"a bad quote names its key", "export K=\"open\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseEnv([]byte(tc.in))
			if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseEnv = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
