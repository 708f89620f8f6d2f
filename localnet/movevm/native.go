// Package movevm loads Initia's Move libraries at run time: libcompiler (the Move compiler,
// from the pinned npm package @initia/builder.js@0.2.12) and libmovevm (the MoveVM a
// minimove v1.1.11 runs, from Initia's movevm v1.1.2 Go module), which `vipctl setup` (or
// `make setup`) installs (Install). They are opened with dlopen
// through a small cgo shim whose declarations are written from the libraries' public C ABI,
// so `go build ./...` works without them; a missing library, or one whose sha256 differs
// from native.sha256, is an error that says how to install it.
package movevm

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "shim.h"

typedef UnmanagedVector (*slice_fn)(UnmanagedVector *errmsg, ByteSliceView arg);
typedef void (*destroy_fn)(UnmanagedVector v);

static void *vh_open(const char *path, char **err) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) *err = dlerror();
	return h;
}

static void *vh_sym(void *h, const char *name) { return dlsym(h, name); }

// The libraries read their environment through libc.
static void vh_setenv_default(const char *k, const char *v) { setenv(k, v, 0); }

static UnmanagedVector vh_call_slice(void *fn, UnmanagedVector *errmsg, const uint8_t *ptr, size_t len) {
	ByteSliceView v = { ptr == NULL, ptr, len };
	return ((slice_fn)fn)(errmsg, v);
}

static void vh_destroy(void *fn, UnmanagedVector v) { ((destroy_fn)fn)(v); }
*/
import "C"

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/vipharness/vipharness/localnet"
)

//go:embed native.sha256
var sums []byte

// Library file names of the pinned x86_64 build.
const (
	CompilerLib = "libcompiler.x86_64.so"
	VMLib       = "libmovevm.x86_64.so"
)

// ErrNotInstalled means a library is missing; `vipctl setup` or `make setup` installs it.
var ErrNotInstalled = errors.New("the Move library is not installed")

// Dir is where the libraries are looked for: $VIPHARNESS_MOVEVM, else the first of the
// checkout's .cache/movevm (`make setup`) and the user cache directory's vipharness/movevm
// (`vipctl setup`) that holds both, else the first of those (where set-up would put them).
func Dir() string {
	if d := os.Getenv("VIPHARNESS_MOVEVM"); d != "" {
		return d
	}
	dirs := localnet.CacheDirs("movevm")
	for _, d := range dirs {
		if present(d) {
			return d
		}
	}
	return dirs[0]
}

func present(dir string) bool {
	for _, name := range []string{CompilerLib, VMLib} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// pinned is the expected sha256 of a library file.
func pinned(name string) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[1] == name {
			return f[0], true
		}
	}
	return "", false
}

// library is one opened shared library.
type library struct {
	path    string
	handle  unsafe.Pointer
	destroy unsafe.Pointer
	mu      sync.Mutex
	syms    map[string]unsafe.Pointer
	prefix  string
}

var (
	openMu sync.Mutex
	opened = map[string]*library{}
)

// open verifies and dlopens a library once per process (a library cannot be unloaded
// safely while Rust threads of it may run).
func open(dir, name string) (*library, error) {
	path := filepath.Join(dir, name)
	openMu.Lock()
	defer openMu.Unlock()
	if l, ok := opened[path]; ok {
		return l, nil
	}
	if err := verify(path, name); err != nil {
		return nil, err
	}
	quietBacktraces()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	h := C.vh_open(cpath, &cerr)
	if h == nil {
		return nil, fmt.Errorf("dlopen %s: %s", path, C.GoString(cerr))
	}
	l := &library{path: path, handle: h, syms: map[string]unsafe.Pointer{}}
	// movevm v1 names its entry points with the library's name as a prefix.
	if p := strings.TrimSuffix(name, ".x86_64.so") + "_"; l.raw(p+"destroy_unmanaged_vector") != nil {
		l.prefix = p
	}
	d, err := l.sym("destroy_unmanaged_vector")
	if err != nil {
		return nil, err
	}
	l.destroy = d
	opened[path] = l
	return l, nil
}

// quietBacktraces stops the libraries' Rust code from capturing a backtrace with each
// internal error (the VM makes and drops such errors during normal publishing): resolving
// the first one reads the whole process's symbols, ~0.5 s in a large binary, and the
// backtraces only clutter error messages. RUST_BACKTRACE (often set for panics) would turn
// them on; RUST_LIB_BACKTRACE, which Rust lets override it for this, is left as the user set it.
func quietBacktraces() {
	if _, set := os.LookupEnv("RUST_LIB_BACKTRACE"); !set {
		k, v := C.CString("RUST_LIB_BACKTRACE"), C.CString("0")
		defer C.free(unsafe.Pointer(k))
		defer C.free(unsafe.Pointer(v))
		C.vh_setenv_default(k, v)
	}
}

func verify(path, name string) error {
	want, ok := pinned(name)
	if !ok {
		return fmt.Errorf("no pinned checksum for %s", name)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s is missing; `vipctl setup` (or `make setup` in a checkout) installs it (%s), or set VIPHARNESS_MOVEVM to a folder that holds it", ErrNotInstalled, path, source(name))
	}
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("hash %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s has sha256 %s, pinned %s: remove it and run `vipctl setup` (or `make setup`)", path, got, want)
	}
	return nil
}

// source names where Install takes a library from.
func source(name string) string {
	if name == VMLib {
		return "from the Go module " + VMModule + " " + VMVersion
	}
	return "from the npm package " + Package
}

func (l *library) sym(name string) (unsafe.Pointer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.syms[name]; ok {
		return p, nil
	}
	p := l.raw(l.prefix + name)
	if p == nil {
		return nil, fmt.Errorf("%s has no symbol %s", l.path, name)
	}
	l.syms[name] = p
	return p, nil
}

// raw looks a symbol up as it is named.
func (l *library) raw(name string) unsafe.Pointer {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return C.vh_sym(l.handle, cname)
}

// callSlice calls an entry point of the shape
// UnmanagedVector fn(UnmanagedVector *errmsg, ByteSliceView arg), returning the output bytes
// or the library's error message; both vectors are freed by the library's own allocator.
func (l *library) callSlice(name string, arg []byte) ([]byte, error) {
	fn, err := l.sym(name)
	if err != nil {
		return nil, err
	}
	var ptr *C.uint8_t
	if len(arg) > 0 {
		c := C.CBytes(arg)
		defer C.free(c)
		ptr = (*C.uint8_t)(c)
	}
	var errmsg C.UnmanagedVector
	errmsg.is_none = true
	out := C.vh_call_slice(fn, &errmsg, ptr, C.size_t(len(arg)))
	res := l.take(out)
	if msg := l.take(errmsg); msg != nil {
		return nil, fmt.Errorf("%s: %s", name, msg)
	}
	return res, nil
}

// take copies an UnmanagedVector's bytes (nil when none) and frees it.
func (l *library) take(v C.UnmanagedVector) []byte {
	if bool(v.is_none) {
		return nil
	}
	out := C.GoBytes(unsafe.Pointer(v.ptr), C.int(v.len))
	C.vh_destroy(l.destroy, v)
	return out
}
