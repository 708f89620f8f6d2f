package main

import (
	"errors"
	"strings"
	"testing"
)

// --minitiad and --image are the minitia engine's, and name one rollup: both together, or
// either with another engine, is exit 2 naming the flag.
func TestMinitiaFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		choice  engineChoice
		refused string // "" when accepted
	}{
		{"binary", engineChoice{name: "minitia", minitiad: "/x/minitiad"}, ""},
		{"image", engineChoice{name: "minitia", image: "ghcr.io/initia-labs/minievm:v1.2.18"}, ""},
		{"image and entrypoint", engineChoice{name: "minitia", image: "team/minievm:dev", imageCmd: "/bin/minitiad"}, ""},
		{"neither", engineChoice{name: "minitia"}, ""},
		{"both", engineChoice{name: "minitia", minitiad: "/x/minitiad", image: "team/minievm:dev"}, "--minitiad and --image both name the rollup"},
		{"image on another engine", engineChoice{name: "container", image: "team/minievm:dev"}, `--image is for --engine minitia (got --engine "container")`},
		{"binary on another engine", engineChoice{name: "process", minitiad: "/x/minitiad"}, "--minitiad is for --engine minitia"},
		{"entrypoint alone", engineChoice{name: "minitia", imageCmd: "/bin/minitiad"}, "--image-entrypoint is for --image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectRefusal(t, tc.choice.checkMinitia(), tc.refused)
		})
	}
}

// expectRefusal checks that err is nil when refused is "", else a refusal (exit 2) that says
// refused.
func expectRefusal(t *testing.T, err error, refused string) {
	t.Helper()
	if refused == "" {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	var ee *exitError
	if err == nil || !strings.Contains(err.Error(), refused) || !errors.As(err, &ee) || ee.code != exitInvalid {
		t.Fatalf("err %v, want exit 2 with %q", err, refused)
	}
}
