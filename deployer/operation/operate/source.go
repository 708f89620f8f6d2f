package operate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/vipharness/vipharness/deployer/scores"
)

// Source yields the scores of a stage. An error means the source failed: the operator then
// pushes nothing and finalizes nothing for that stage until it answers again.
type Source interface {
	// Scores hands each entry of stage's complete score set to emit as it is read (none:
	// the source says the stage has no scores). The operator validates them as they come,
	// so a large set is never held as text; after an error it uses none of them.
	Scores(ctx context.Context, stage uint64, emit func(scores.Entry)) error
	// Changed reports whether the source is known to have changed since its last read (a
	// file rewritten since), so it is read before the next interval; sources that cannot
	// tell return false and are read every interval.
	Changed(stage uint64) bool
	// PerStage reports whether the source answers each stage with that stage's scores (a
	// path or command with {stage}, a command reading VIP_STAGE). A source that gives every
	// stage the same answer cannot close several stages at once: each would get one set.
	PerStage() bool
	// String names the source in logs.
	String() string
}

// ErrMissing is a source that has nothing for a stage yet (a stage file not written yet).
// For the open stage that is normal; a stage the L1 has moved past is not finalized without it.
var ErrMissing = errors.New("no scores written for this stage yet")

// StagePlaceholder in a file path or command argument is replaced by the stage number.
const StagePlaceholder = "{stage}"

func expand(s string, stage uint64) string {
	return strings.ReplaceAll(s, StagePlaceholder, strconv.FormatUint(stage, 10))
}

// FileSource reads a CSV or JSON score file, re-read when it changes. The path may hold
// {stage}; without it the one file holds the scores of whichever stage is being worked on.
// Write the file atomically (write elsewhere, then rename): a file that changes while it is
// read is not used.
type FileSource struct {
	Path   string
	Format string // csv or json; default from the extension

	seen map[string]scores.FileStamp
}

func (f *FileSource) String() string { return "file " + f.Path }

// PerStage is true when the path holds {stage}.
func (f *FileSource) PerStage() bool { return strings.Contains(f.Path, StagePlaceholder) }

// Changed reports whether the stage's file differs (inode, size or time) from the last read.
func (f *FileSource) Changed(stage uint64) bool {
	path := expand(f.Path, stage)
	st, err := scores.StatFile(path)
	if err != nil {
		return false // not there (yet): the interval's read reports it
	}
	last, ok := f.seen[path]
	return !ok || !last.Same(st)
}

// Scores reads the stage's file; one that changes while it is read is refused by the
// shared reader (scores.ErrChanged), as vipctl scores update and verify refuse it.
func (f *FileSource) Scores(_ context.Context, stage uint64, emit func(scores.Entry)) error {
	path := expand(f.Path, stage)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("score file %s: %w", path, ErrMissing)
	}
	st, err := scores.ReadFileStamped(path, f.Format, emit)
	if err != nil {
		return fmt.Errorf("stage %d: %w", stage, err)
	}
	if f.seen == nil {
		f.seen = map[string]scores.FileStamp{}
	}
	f.seen[path] = st
	return nil
}

// CommandSource runs a command that prints the stage's scores as CSV or JSON on stdout; the
// stage is in its environment as VIP_STAGE and replaces {stage} in its arguments. A
// non-zero exit, a timeout or output that does not parse is a failure of the source.
type CommandSource struct {
	Argv    []string
	Format  string // csv, json, or "" to tell from the output ('[' starts JSON)
	Timeout time.Duration
}

func (c *CommandSource) String() string { return "command " + strings.Join(c.Argv, " ") }

// PerStage is true: the command is told the stage (VIP_STAGE, {stage}).
func (c *CommandSource) PerStage() bool { return true }

// Changed is always false: a command cannot tell, so it is run every interval.
func (c *CommandSource) Changed(uint64) bool { return false }

// maxStderr bounds how much of a failing command's stderr an error quotes.
const maxStderr = 512

// Scores runs the command and reads what it prints as it prints it (the answer is never
// held whole); a failed run is the error, whatever it printed.
func (c *CommandSource) Scores(ctx context.Context, stage uint64, emit func(scores.Entry)) error {
	if len(c.Argv) == 0 {
		return errors.New("score command: empty")
	}
	var named scores.Format
	if c.Format != "" {
		f, err := scores.ParseFormat(c.Format)
		if err != nil {
			return fmt.Errorf("score command: %w", err)
		}
		named = f
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	args := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		args[i] = expand(a, stage)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "VIP_STAGE="+strconv.FormatUint(stage, 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("score command for stage %d: %w", stage, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("score command for stage %d: %w", stage, err)
	}
	out := bufio.NewReaderSize(pipe, 64<<10)
	f := named
	if f == "" {
		f = sniff(out)
	}
	perr := scores.Read(out, f, emit)
	_, _ = io.Copy(io.Discard, out) // what is left, so the command is not blocked writing it
	if err := cmd.Wait(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > maxStderr {
			msg = msg[:maxStderr] + "..."
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, ctx.Err())
		}
		return fmt.Errorf("score command for stage %d: %w: %s", stage, err, msg)
	}
	if perr != nil {
		return fmt.Errorf("score command for stage %d printed malformed %s: %w", stage, f, perr)
	}
	return nil
}

// sniff tells an output's format: JSON when the first character printed (past white space)
// is '[', else CSV.
// A UTF-8 byte order mark before it is skipped, as the parser skips it.
func sniff(out *bufio.Reader) scores.Format {
	start := 1
	if b, _ := out.Peek(3); string(b) == "\xEF\xBB\xBF" {
		start = 4
	}
	for n := start; ; n++ {
		b, err := out.Peek(n)
		if len(b) < n || err != nil {
			return scores.CSV // white space only, or nothing: an empty answer
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			return scores.JSON
		}
		return scores.CSV
	}
}
