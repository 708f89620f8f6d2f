package minitiad

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sync"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/container"
)

// Image is a rollup image of a VM, and how minitiad is called in it.
type Image struct {
	// Ref names the image: ghcr.io/initia-labs/minievm:<version> or its siblings, a team's
	// own, or one built here (PackageImage). The Docker engine pulls it if it lacks it.
	Ref string
	// Entrypoint are the words that run minitiad in the image; they replace the image's
	// own entrypoint. Default DefaultEntrypoint, where Initia's images keep minitiad
	// (they carry it with CMD ["/usr/local/bin/minitiad", "version"], no entrypoint).
	Entrypoint []string
	// Mount is where the home's volume is mounted, the home being <Mount>/.minitia.
	// Default DefaultMount: the official images' working folder, their user's home, which
	// that user owns (a volume mounted over it is filled with it, owner included).
	Mount string
}

// Defaults of Image.
const (
	DefaultMount = "/minitia"
	// imageBinary is where Initia's images keep minitiad, and where PackageImage puts it.
	imageBinary = "/usr/local/bin/" + Binary
)

// DefaultEntrypoint runs minitiad in Initia's images and in PackageImage's.
var DefaultEntrypoint = []string{imageBinary}

func (i Image) withDefaults() Image {
	if len(i.Entrypoint) == 0 {
		i.Entrypoint = DefaultEntrypoint
	}
	if i.Mount == "" {
		i.Mount = DefaultMount
	}
	return i
}

// Container ports of a node in an image: a CometBFT node's and a minievm's defaults.
var containerPorts = ports{rpc: 26657, p2p: 26656, proxy: 26658, pprof: 6060, prometheus: 26660, api: 1317, grpc: 9090, jsonrpc: 8545, jsonrpcWS: 8546}

// imageRunner runs every minitiad command in a container of the image, on a Docker volume
// that holds the home; the node serves on 0.0.0.0 in its container, published on the
// Docker host (127.0.0.1 where the engine is local).
type imageRunner struct {
	h       *container.Home
	img     Image
	publish []int
}

var _ runner = (*imageRunner)(nil)

func newImageRunner(ctx context.Context, img Image, vm vip.VM) (*imageRunner, error) {
	img = img.withDefaults()
	h, err := container.NewHome(ctx, container.HomeSpec{
		Kind: Dist(vm), Image: img.Ref, Entrypoint: img.Entrypoint, Mount: img.Mount,
		Labels: map[string]string{"org.vipharness.vm": string(vm), "org.vipharness.minitia": Dist(vm)},
	})
	if err != nil {
		return nil, fmt.Errorf("minitia engine: %w", err)
	}
	r := &imageRunner{h: h, img: img}
	r.publish = r.listeners().published(vm)
	return r, nil
}

func (r *imageRunner) home() string { return path.Join(r.img.Mount, ".minitia") }
func (r *imageRunner) listeners() listeners {
	return listeners{served: "0.0.0.0", ports: containerPorts}
}
func (r *imageRunner) url(port int) string { return r.h.URL(port) }
func (r *imageRunner) where() string       { return "container " + shortID(r.h.ServerID()) }
func (r *imageRunner) logs() string        { return r.h.Logs() }
func (r *imageRunner) exited(ctx context.Context) (bool, error) {
	return r.h.Exited(ctx)
}

func (r *imageRunner) run(ctx context.Context, stdin string, args ...string) ([]byte, error) {
	return r.h.Run(ctx, stdin, args...)
}

func (r *imageRunner) edit(ctx context.Context, file string, fn func([]byte) ([]byte, error)) error {
	return r.h.Edit(ctx, path.Join(r.home(), file), fn)
}

func (r *imageRunner) serve(ctx context.Context, args ...string) error {
	return r.h.Serve(ctx, args, r.publish)
}

func (r *imageRunner) stop(ctx context.Context) error { return r.h.Close(ctx) }

// containers are the IDs of every container the rollup made.
func (r *imageRunner) containers() []string { return r.h.Containers() }

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// LocalImage is the tag PackageImage gives vm's image: vipharness/minitia-<dist>:local.
func LocalImage(vm vip.VM) string { return "vipharness/minitia-" + Dist(vm) + ":local" }

// packaged are the binaries packaged in this process (one build at a time).
var packaged struct {
	sync.Mutex
	done map[string]bool
}

// PackageImage packages bin, vm's minitiad on this machine, into a local image tagged
// LocalImage(vm), as Initia's images lay it out: minitiad at /usr/local/bin/minitiad, the
// shared libraries beside it (libmovevm, libcompiler, libwasmvm) and what ldd names,
// FROM scratch, with /tmp and DefaultMount. It packages an existing binary; it builds no
// code. For tests and machines without a registry: a team with a registry runs its image.
func PackageImage(ctx context.Context, bin string, vm vip.VM) (Image, error) {
	if Dist(vm) == "" {
		return Image{}, fmt.Errorf("minitia engine: no rollup distribution for VM %q", vm)
	}
	ref := LocalImage(vm)
	packaged.Lock()
	defer packaged.Unlock()
	if key := bin + "\x00" + ref; !packaged.done[key] {
		libs, err := filepath.Glob(filepath.Join(filepath.Dir(bin), "*.so"))
		if err == nil {
			err = container.BuildBinaryImage(ctx, container.BinaryImage{
				Binary: bin, At: imageBinary, Libraries: libs, Dirs: []string{"/tmp", DefaultMount}, Ref: ref,
			})
		}
		if err != nil {
			return Image{}, fmt.Errorf("minitia engine: package %s into %s: %w", bin, ref, err)
		}
		if packaged.done == nil {
			packaged.done = map[string]bool{}
		}
		packaged.done[key] = true
	}
	return Image{Ref: ref}, nil
}
