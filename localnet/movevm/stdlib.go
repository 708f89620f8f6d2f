package movevm

import (
	"fmt"

	"github.com/initia-labs/movevm/precompile"
)

// MinitiaStdlib is the 0x1 framework a minimove runs (movevm's precompiled minlib, of
// the movevm version VMVersion names): the modules' bytecode, in the order the library
// ships them (Initialize sorts out their dependencies).
func MinitiaStdlib() ([][]byte, error) {
	mods, err := precompile.ReadMinlib()
	if err != nil {
		return nil, fmt.Errorf("read movevm %s's minlib: %w", VMVersion, err)
	}
	return mods, nil
}
