package move

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// Compilation is what a compiled module says of the compiler that built it (the
// "compilation_metadata" entry of its metadata table).
type Compilation struct {
	Unstable        bool
	CompilerVersion string
	LanguageVersion string
}

// ErrUnstableBytecode is a module marked unstable by its compiler: Initia's rollups refuse to
// publish it (UNSTABLE_BYTECODE_REJECTED).
var ErrUnstableBytecode = errors.New("bytecode marked unstable")

// metadataTable is the METADATA table kind of the Move binary format.
const metadataTable = 0x10

var moduleMagic = []byte{0xa1, 0x1c, 0xeb, 0x0b}

// ReadCompilation reads the compilation metadata of a compiled module; ok is false when the
// module carries none (a compiler before 2.0).
func ReadCompilation(code []byte) (c Compilation, ok bool, err error) {
	if !bytes.HasPrefix(code, moduleMagic) {
		return c, false, errors.New("not a compiled Move module (no magic)")
	}
	r := movebcs.NewReader(code[len(moduleMagic):])
	r.Take(4) // the binary format version
	tables := r.ULEB128()
	type table struct{ kind, offset, count uint64 }
	var meta *table
	for range tables {
		t := table{kind: uint64(r.U8()), offset: r.ULEB128(), count: r.ULEB128()}
		if t.kind == metadataTable {
			meta = &t
		}
	}
	if r.Err() != nil {
		return c, false, fmt.Errorf("read the module's table directory: %w", r.Err())
	}
	if meta == nil {
		return c, false, nil
	}
	content := code[len(code)-r.Len():]
	if meta.offset+meta.count > uint64(len(content)) {
		return c, false, errors.New("the module's metadata table runs past its end")
	}
	mr := movebcs.NewReader(content[meta.offset : meta.offset+meta.count])
	for mr.Len() > 0 && mr.Err() == nil {
		key, value := mr.Bytes(), mr.Bytes()
		if string(key) != "compilation_metadata" {
			continue
		}
		vr := movebcs.NewReader(value)
		c = Compilation{Unstable: vr.Bool(), CompilerVersion: vr.Str(), LanguageVersion: vr.Str()}
		if err := vr.Done(); err != nil {
			return Compilation{}, false, fmt.Errorf("read the module's compilation metadata: %w", err)
		}
		return c, true, nil
	}
	if mr.Err() != nil {
		return c, false, fmt.Errorf("read the module's metadata: %w", mr.Err())
	}
	return c, false, nil
}

// CheckStable refuses, before anything is sent, a module that Initia's rollups would refuse
// to publish: one its compiler marked unstable.
func CheckStable(code []byte) error {
	c, ok, err := ReadCompilation(code)
	if err != nil {
		return fmt.Errorf("check vip_score's bytecode: %w", err)
	}
	if ok && c.Unstable {
		return fmt.Errorf("vip_score: %w (compiler %s, language %s): a Move rollup refuses to publish it (UNSTABLE_BYTECODE_REJECTED); build it with the latest stable compiler (2.0), as `minitiad move build` does", ErrUnstableBytecode, c.CompilerVersion, c.LanguageVersion)
	}
	return nil
}
