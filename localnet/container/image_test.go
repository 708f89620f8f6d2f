package container

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

func TestParseLdd(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    map[string]string
		wantErr string
	}{
		{
			name: "wasmvm from a module cache under /tmp",
			out: "\tlinux-vdso.so.1 (0x00007ffd)\n" +
				"\tlibwasmvm.x86_64.so => /tmp/gomod/github.com/!cosm!wasm/wasmvm/v3@v3.0.7/internal/api/libwasmvm.x86_64.so (0x00007f)\n" +
				"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n" +
				"\t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n",
			want: map[string]string{
				"/usr/lib/vipharness/libwasmvm.x86_64.so": "/tmp/gomod/github.com/!cosm!wasm/wasmvm/v3@v3.0.7/internal/api/libwasmvm.x86_64.so",
				"/usr/lib/vipharness/libc.so.6":           "/lib/x86_64-linux-gnu/libc.so.6",
				"/lib64/ld-linux-x86-64.so.2":             "/lib64/ld-linux-x86-64.so.2",
			},
		},
		{
			name:    "a library the host lacks",
			out:     "\tlibwasmvm.x86_64.so => not found\n",
			wantErr: "libwasmvm.x86_64.so not found",
		},
		{
			name: "static binary",
			out:  "\tnot a dynamic executable\n",
			want: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLdd([]byte(tt.out))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// A cgo binary whose library sits under /tmp on the host (as libwasmvm does when the Go
// module cache is there) still starts in its image while the container mounts a tmpfs on
// /tmp, as the wasmd and dev node containers do.
func TestCgoImageRunsWithLibraryUnderTmp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := dockerAvailable(ctx); err != nil {
		if os.Getenv("REQUIRE_DOCKER") == "1" || os.Getenv("CI") == "true" {
			t.Fatalf("REQUIRE_DOCKER=1 or CI=true: %v", err)
		}
		t.Skipf("container engine unavailable: %v (set REQUIRE_DOCKER=1 to fail instead)", err)
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is missing: apt-get install -y gcc")
	}
	// Under /tmp explicitly, whatever TMPDIR says.
	libDir, err := os.MkdirTemp("/tmp", "vipharness-probe-lib-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(libDir) })
	write := func(name, src string) string {
		p := filepath.Join(libDir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	libSrc := write("probe.c", "int probe_answer(void) { return 42; }\n")
	mainSrc := write("main.c", "#include <stdio.h>\nint probe_answer(void);\nint main(void) { printf(\"probe answer %d\\n\", probe_answer()); return 0; }\n")
	gcc := func(args ...string) {
		if out, err := exec.CommandContext(ctx, "gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
	}
	gcc("-shared", "-fPIC", "-o", filepath.Join(libDir, "libvipprobe.so"), libSrc)
	bin := filepath.Join(libDir, "probe")
	gcc("-o", bin, mainSrc, "-L"+libDir, "-lvipprobe", "-Wl,-rpath,"+libDir)

	buildCtx, err := cgoImageContext(ctx, bin, "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(buildCtx)
	if _, err := os.Stat(filepath.Join(buildCtx, "rootfs", imageLibDir, "libvipprobe.so")); err != nil {
		t.Fatalf("library not at the fixed image path: %v", err)
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			FromDockerfile: testcontainers.FromDockerfile{
				Context: buildCtx, Repo: "vipharness/probe", Tag: "test",
				BuildOptionsModifier: func(o *client.ImageBuildOptions) { o.Labels = map[string]string{Label: "image"} },
			},
			Labels:     map[string]string{Label: "container", ownerLabel: owner},
			Tmpfs:      map[string]string{"/tmp": "rw,mode=1777"},
			WaitingFor: wait.ForExit().WithExitTimeout(time.Minute),
		},
		Started: true,
	})
	if ctr != nil {
		defer func() { _ = ctr.Terminate(context.Background()) }()
	}
	if err != nil {
		t.Fatalf("start the probe image: %v", err)
	}
	state, err := ctr.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logs := readAll(ctr.Logs(ctx))
	if state.ExitCode != 0 || !strings.Contains(logs, "probe answer 42") {
		t.Fatalf("probe exited %d (127 means a library was not found); log:\n%s", state.ExitCode, logs)
	}
}
