package container

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/localnet/gethdev"
	"github.com/vipharness/vipharness/localnet/process"
	"github.com/vipharness/vipharness/localnet/wasmddev"
)

func TestPickImageBinary(t *testing.T) {
	dir := t.TempDir()
	linuxARM := filepath.Join(LinuxNodesDir(dir, "arm64"), gethdev.Binary)
	if err := os.MkdirAll(filepath.Dir(linuxARM), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(linuxARM, []byte("static geth"), 0o755); err != nil {
		t.Fatal(err)
	}
	amd, arm, mac := platform{"linux", "amd64"}, platform{"linux", "arm64"}, platform{"darwin", "arm64"}
	tests := []struct {
		name         string
		bin          string
		host, engine platform
		want         string // the image binary, or an error containing it
		wantErr      bool
	}{
		{"same platform: the host's binary", gethdev.Binary, amd, amd, "/host/geth", false},
		{"same platform, cgo node", wasmddev.Binary, amd, amd, "/host/geth", false},
		{"a Mac on Docker Desktop: the static linux build", gethdev.Binary, mac, arm, linuxARM, false},
		{"no linux build yet: names the make target", gethdev.Binary, mac, amd, "make nodes-linux ARCH=amd64", true},
		{"cgo node on a Mac: says why and what instead", wasmddev.Binary, mac, arm, "shared libraries it links (cgo), which a darwin/arm64 machine cannot provide", true},
		{"dev node for an arm engine on amd64 linux", process.DevNodeBinary, amd, arm, "Engine.Images", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pickImageBinary(tt.bin, "/host/geth", tt.host, tt.engine, []string{dir})
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
