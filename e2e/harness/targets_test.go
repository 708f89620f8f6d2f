package harness

import "testing"

// An engine is named by a label filter as a word, or by a variant that is no engine of its own:
// "container-devnode" names container, "minitia-image" does not name minitia.
func TestNamesEngine(t *testing.T) {
	for _, tc := range []struct {
		filter, engine string
		want           bool
	}{
		{"minitia", "minitia", true},
		{"minitia-image", "minitia", false},
		{"minitia-image", "minitia-image", true},
		{"evm && minitia-image", "minitia-image", true},
		{"evm && (minitia || process)", "minitia", true},
		{"!minitia-image", "!minitia-image", true},
		{"!minitia-image", "!minitia", false},
		{"container-devnode", "container", true},
		{"!minitia", "minitia", false},
		{"!container-devnode", "!container", true},
		{"", "embedded", false},
	} {
		if got := namesEngine(tc.filter, tc.engine); got != tc.want {
			t.Errorf("namesEngine(%q, %q) = %v, want %v", tc.filter, tc.engine, got, tc.want)
		}
	}
}
