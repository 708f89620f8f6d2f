package container

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moby/moby/client"
)

func TestHostFor(t *testing.T) {
	tests := []struct {
		daemon      string
		sameMachine bool
		dial, bind  string
	}{
		// A local socket: publish on the IPv4 loopback and dial that.
		{"localhost", false, "127.0.0.1", "127.0.0.1"},
		{"127.0.0.1", false, "127.0.0.1", "127.0.0.1"},
		{"::1", false, "::1", "::1"},
		// A socket inside a container: testcontainers guesses the bridge gateway, but the
		// engine runs on this machine (its host name is ours): loopback.
		{"172.17.0.1", true, "127.0.0.1", "127.0.0.1"},
		// A remote engine (DOCKER_HOST=tcp://docker:2375, a dind service, an override):
		// published on its interfaces, dialled by its name.
		{"docker", false, "docker", "invalid IP"},
		{"10.1.2.3", false, "10.1.2.3", "invalid IP"},
		{"172.17.0.1", false, "172.17.0.1", "invalid IP"},
	}
	for _, tt := range tests {
		got := hostFor(tt.daemon, tt.sameMachine)
		if got.host != tt.dial || got.bind.String() != tt.bind {
			t.Errorf("hostFor(%q) = dial %s bind %s, want %s, %s", tt.daemon, got.host, got.bind, tt.dial, tt.bind)
		}
	}
	if u := hostFor("::1", false).url(8545); u != "http://[::1]:8545" {
		t.Errorf("IPv6 URL %s", u)
	}
}

func TestTarDirKeepsTreeAndModes(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "config"), 0o700))
	must(os.WriteFile(filepath.Join(dir, "config", "app.toml"), []byte("a = 1\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "mnemonics"), []byte("secret words\n"), 0o600))
	must(os.Symlink(filepath.Join(dir, "mnemonics"), filepath.Join(dir, "link")))

	read := func(only []string) map[string]string {
		var buf bytes.Buffer
		must(tarDir(&buf, dir, "/home", only))
		out := map[string]string{}
		tr := tar.NewReader(&buf)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return out
			}
			must(err)
			b, _ := io.ReadAll(tr)
			out[h.Name] = os.FileMode(h.Mode).String() + " " + string(b)
		}
	}
	want := map[string]string{
		"home/":                "-rwxr-xr-x ",
		"home/config/":         "-rwx------ ",
		"home/config/app.toml": "-rw-r--r-- a = 1\n",
		"home/mnemonics":       "-rw------- secret words\n",
		"home/link":            "-rw------- secret words\n", // followed, not linked
	}
	if got := read(nil); !reflect.DeepEqual(got, want) {
		t.Fatalf("tree:\n got %v\nwant %v", got, want)
	}
	if got := read([]string{"mnemonics"}); !reflect.DeepEqual(got, map[string]string{"home/": want["home/"], "home/mnemonics": want["home/mnemonics"]}) {
		t.Fatalf("only mnemonics: %v", got)
	}
	var buf bytes.Buffer
	if err := tarDir(&buf, dir, "/home", []string{"absent"}); err == nil {
		t.Fatal("a named file that is missing must fail")
	}
}

func TestSameEngineRefusesAFallback(t *testing.T) {
	if err := sameEngine("", "unix:///var/run/docker.sock"); err != nil {
		t.Fatal(err)
	}
	if err := sameEngine("tcp://127.0.0.1:2375", "tcp://127.0.0.1:2375"); err != nil {
		t.Fatal(err)
	}
	err := sameEngine("tcp://127.0.0.1:2375", "unix:///var/run/docker.sock")
	if err == nil || !strings.Contains(err.Error(), "DOCKER_HOST=tcp://127.0.0.1:2375 does not answer") {
		t.Fatalf("a silent fallback to the local socket must be refused, got %v", err)
	}
}

func TestGoneTellsARaceFromAFailure(t *testing.T) {
	c, err := dockerClient(t.Context())
	if err != nil {
		t.Skip(err)
	}
	defer c.Close()
	if _, err := c.Ping(t.Context(), client.PingOptions{}); err != nil {
		t.Skipf("no Docker engine: %v", err)
	}
	// Removing what does not exist (as after a parallel sweep) is not a failure.
	_, err = c.VolumeRemove(t.Context(), "vipharness-no-such-volume-"+randHex(6), client.VolumeRemoveOptions{})
	if err == nil || !gone(err) {
		t.Fatalf("removing a missing volume: %v; want an error gone() accepts", err)
	}
	if gone(errors.New("connection refused")) {
		t.Fatal("any other error is a failure")
	}
}

// A start after the first copies again every seed the volume does not keep: a dev node
// (no volume) restarted on fresh ports needs its mnemonics and library again.
func TestSeedsToCopyAfterTheFirstStart(t *testing.T) {
	home, lib, data := seed{hostDir: "h", at: "/home"}, seed{hostDir: "l", at: "/movevm"}, seed{hostDir: "d", at: "/data/config"}
	all := []seed{home, lib, data}
	for _, tc := range []struct {
		name, state, volume string
		first               bool
		want                []seed
	}{
		{"first start", "/data", "v", true, all},
		{"no volume", "", "", false, all},
		{"state without a volume", "/data", "", false, all},
		{"volume keeps what is under it", "/data", "v", false, []seed{home, lib}},
		{"volume at the seed itself", "/home", "v", false, []seed{lib, data}},
		{"a sibling with the same prefix is not kept", "/hom", "v", false, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &node{spec: nodeSpec{state: tc.state, seeds: all}, volume: tc.volume}
			got := n.seedsToCopy(tc.first)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("seedsToCopy(%v) = %v, want %v", tc.first, got, tc.want)
			}
		})
	}
}
