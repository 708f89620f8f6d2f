package scores

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// ErrChanged is a score file that was not the same file, of the same size and time, at the
// end of its read as at its start, or whose last line was not yet written whole: what was
// read may match neither version, so none of it is used.
var ErrChanged = errors.New("changed while it was read; write it atomically (to a temporary file, then rename)")

// ErrUnterminated is a CSV score file whose last line has no newline: a file still being
// written, or cut.
var ErrUnterminated = errors.New("its last line has no newline: the file is still being written, or was cut; end every line with a newline and write the file atomically")

// FileStamp names one version of a file: its identity (device and inode), size and
// modification time.
type FileStamp struct {
	Size    int64
	ModTime time.Time
	info    os.FileInfo
}

// StatFile stamps the file at path.
func StatFile(path string) (FileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileStamp{}, err
	}
	return stampOf(fi), nil
}

func stampOf(fi os.FileInfo) FileStamp {
	return FileStamp{Size: fi.Size(), ModTime: fi.ModTime(), info: fi}
}

// Same reports whether a and b stamp one version of one file (a rename over the path is
// another inode, so another version, even with the same size and time).
func (a FileStamp) Same(b FileStamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == b.info && a.Size == b.Size && a.ModTime.Equal(b.ModTime)
	}
	return a.Size == b.Size && a.ModTime.Equal(b.ModTime) && os.SameFile(a.info, b.info)
}

// tally counts the bytes a reader delivered and keeps the last one.
type tally struct {
	r    io.Reader
	n    int64
	last byte
}

func (t *tally) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.n += int64(n)
		t.last = p[n-1]
	}
	return n, err
}

// readStable parses the regular file at path in format f, and refuses it (ErrChanged) when
// it changed during the read: another inode, size or modification time at the end than at
// the start, or fewer or more bytes read than it holds; and a CSV file whose last line has no
// newline (ErrUnterminated: a writer caught mid-line leaves a valid but cut score). A JSON file needs no
// such rule: cut anywhere, the array is not closed and does not parse.
// A pipe or device is refused: nothing tells its end from a writer's pause.
func readStable(path string, f Format, emit func(Entry)) (FileStamp, error) {
	// Before opening: opening a pipe would wait for a writer.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return FileStamp{}, fmt.Errorf("score file %s is not a regular file (%s): a pipe or device cannot show that it was read whole; write the scores to a file first", path, fi.Mode().Type())
	}
	file, err := os.Open(path)
	if err != nil {
		return FileStamp{}, fmt.Errorf("open score file: %w", err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return FileStamp{}, fmt.Errorf("score file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return FileStamp{}, fmt.Errorf("score file %s is not a regular file (%s): write the scores to a file first", path, fi.Mode().Type())
	}
	before := stampOf(fi)
	t := &tally{r: file}
	perr := parse(t, f, emit)
	// By path: a file renamed over this one is caught as another inode.
	after, err := StatFile(path)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		return FileStamp{}, fmt.Errorf("score file %s (removed): %w", path, ErrChanged)
	case err != nil:
		return FileStamp{}, fmt.Errorf("score file %s: %w", path, err)
	case !before.Same(after):
		return FileStamp{}, fmt.Errorf("score file %s %w (size %d -> %d bytes)", path, ErrChanged, before.Size, after.Size)
	case perr != nil:
		return FileStamp{}, fmt.Errorf("score file %s: %w", path, perr)
	case t.n != after.Size:
		// Both parsers read to the end: a count that differs is a write within one tick
		// of the file system's clock.
		return FileStamp{}, fmt.Errorf("score file %s %w (read %d of %d bytes)", path, ErrChanged, t.n, after.Size)
	case f == CSV && t.n > 0 && t.last != '\n':
		return FileStamp{}, fmt.Errorf("score file %s: %w", path, ErrUnterminated)
	}
	return after, nil
}
