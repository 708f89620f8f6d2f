package movebcs

import (
	"strconv"
	"strings"
)

// Abort is a Move abort: the aborting module and its code, whose upper bits are the
// error category (std::error) and lower 16 bits the module's reason.
type Abort struct {
	Module string // address::name as the VM prints it
	Code   uint64
}

// Category is the std::error category (1 invalid_argument, 5 permission_denied, ...).
func (a Abort) Category() uint64 { return a.Code >> 16 }

// Reason is the module's own error constant.
func (a Abort) Reason() uint64 { return a.Code & 0xffff }

// ParseAbort finds a Move abort in a message such as a chain's raw_log
// ("... VM aborted: location=<address>::<module>, code=<n> ...").
func ParseAbort(msg string) (Abort, bool) {
	_, rest, ok := strings.Cut(msg, "VM aborted: location=")
	if !ok {
		return Abort{}, false
	}
	loc, rest, ok := strings.Cut(rest, ", code=")
	if !ok {
		return Abort{}, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	code, err := strconv.ParseUint(rest[:end], 10, 64)
	if err != nil {
		return Abort{}, false
	}
	return Abort{Module: loc, Code: code}, true
}
