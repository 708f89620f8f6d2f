package container

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/moby/moby/client"
)

// BinaryImage is an image made of one node binary that already exists on this machine:
// FROM scratch, the binary, its program loader and every shared library ldd names for it
// (and for the libraries carried beside it) in one folder on the loader's path, and empty
// folders it needs (a /tmp). It only packages; it builds no code.
type BinaryImage struct {
	// Binary is the binary on this machine.
	Binary string
	// At is its path in the image ("/usr/local/bin/minitiad").
	At string
	// Libraries are shared libraries carried beside the binary (a release archive's
	// libmovevm, libwasmvm): put in the image and their own libraries too.
	Libraries []string
	// Dirs are empty folders the image has (mode 1777, as /tmp).
	Dirs []string
	// Ref tags the image ("vipharness/minitia-minievm:local").
	Ref string
}

// BuildBinaryImage builds b on the Docker engine. The image has no entrypoint: its users
// name the command (HomeSpec.Entrypoint), as with an official image that only carries it.
func BuildBinaryImage(ctx context.Context, b BinaryImage) error {
	quiet()
	if !path.IsAbs(b.At) || b.Ref == "" {
		return errors.New("container engine: a binary image needs an absolute path for the binary and a tag")
	}
	files, err := binaryImageFiles(ctx, b)
	if err != nil {
		return err
	}
	c, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	dockerfile := fmt.Sprintf("FROM scratch\nCOPY rootfs/ /\nENV LD_LIBRARY_PATH=%s\n", imageLibDir)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeBuildContext(pw, dockerfile, files, b.Dirs)) }()
	defer pr.Close()
	res, err := c.ImageBuild(ctx, pr, client.ImageBuildOptions{
		Tags: []string{b.Ref}, Remove: true, ForceRemove: true,
		Labels: map[string]string{Label: "image"},
	})
	if err != nil {
		return fmt.Errorf("container engine: build %s: %w", b.Ref, err)
	}
	defer res.Body.Close()
	return buildOutcome(res.Body, b.Ref)
}

// binaryImageFiles maps each file of the image (its path there) to the file on this
// machine: the binary, the libraries beside it, and what ldd finds for them, with the
// folder of the binary on the library path as the binary's own users run it.
func binaryImageFiles(ctx context.Context, b BinaryImage) (map[string]string, error) {
	files := map[string]string{b.At: b.Binary}
	env := append(os.Environ(), "LD_LIBRARY_PATH="+strings.Join(libraryDirs(b), ":"))
	for _, lib := range b.Libraries {
		files[path.Join(imageLibDir, filepath.Base(lib))] = lib
	}
	for _, file := range append([]string{b.Binary}, b.Libraries...) {
		cmd := exec.CommandContext(ctx, "ldd", file)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			// A static binary: ldd says so and exits 1; nothing to carry.
			if strings.Contains(string(out), "not a dynamic executable") {
				continue
			}
			return nil, fmt.Errorf("container engine: ldd %s: %w", file, err)
		}
		libs, err := parseLdd(out)
		if err != nil {
			return nil, fmt.Errorf("container engine: ldd %s: %w", file, err)
		}
		for dst, src := range libs {
			if _, ok := files[dst]; !ok {
				files[dst] = src
			}
		}
	}
	return files, nil
}

func libraryDirs(b BinaryImage) []string {
	dirs := []string{filepath.Dir(b.Binary)}
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		dirs = append(dirs, old)
	}
	return dirs
}

// writeBuildContext writes the Dockerfile and rootfs/ (files, following links; dirs
// empty, 1777) as a tar stream.
func writeBuildContext(w io.Writer, dockerfile string, files map[string]string, dirs []string) error {
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, dockerfile); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "rootfs" + path.Clean("/"+d) + "/", Mode: 0o1777}); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := addFile(tw, "rootfs"+path.Clean("/"+name), files[name]); err != nil {
			return err
		}
	}
	return tw.Close()
}

func addFile(tw *tar.Writer, name, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(st.Mode().Perm() | 0o555), Size: st.Size(), ModTime: st.ModTime()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// buildOutcome reads the engine's build messages to their end and returns the first
// error it reports.
func buildOutcome(r io.Reader, ref string) error {
	dec := json.NewDecoder(r)
	var last string
	for {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("container engine: build %s: read the engine's reply: %w", ref, err)
		}
		if m.Error != "" {
			return fmt.Errorf("container engine: build %s: %s (after: %s)", ref, m.Error, strings.TrimSpace(last))
		}
		if s := strings.TrimSpace(m.Stream); s != "" {
			last = s
		}
	}
}
