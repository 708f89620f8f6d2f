package probe

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// Release is the minitiad release a rollup's version maps to.
type Release struct {
	Repo  string // initia-labs/minievm
	Tag   string // v1.0.3
	Asset string // minievm_v1.0.3_Linux_x86_64.tar.gz
	URL   string
}

var (
	semverTag   = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	gitDescribe = regexp.MustCompile(`-(\d+)-g[0-9a-f]{7,40}(-dirty)?$`)
)

// ErrNotRelease says a version is a local build (git describe output or a dirty tree), which
// no published release matches.
type ErrNotRelease struct{ Version, Reason string }

func (e *ErrNotRelease) Error() string {
	return fmt.Sprintf("version %q is %s, not a release tag", e.Version, e.Reason)
}

// ReleaseFor maps a minitia type (minievm, minimove, miniwasm) and version to the release
// asset for goos/goarch (Go's names: linux, darwin; amd64, arm64). A version that is not a
// v-prefixed semver tag, or that git describe produced, gives *ErrNotRelease with the nearest
// tag's release still filled in where one can be read from it.
func ReleaseFor(minitia, version, goos, goarch string) (Release, error) {
	if _, ok := vip.ByMinitia(minitia); !ok {
		return Release{}, fmt.Errorf("unknown minitia %q: want minievm, minimove or miniwasm", minitia)
	}
	osName := map[string]string{"linux": "Linux", "darwin": "Darwin"}[goos]
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[goarch]
	if osName == "" || arch == "" {
		return Release{}, fmt.Errorf("no %s release is published for %s/%s (Linux and Darwin, x86_64 and aarch64 only)", minitia, goos, goarch)
	}
	tag := version
	var notRelease error
	if m := gitDescribe.FindStringIndex(version); m != nil {
		tag = version[:m[0]]
		notRelease = &ErrNotRelease{version, fmt.Sprintf("a local build %s commits after %s", gitDescribe.FindStringSubmatch(version)[1], tag)}
	} else if i := strings.IndexByte(version, '+'); i > 0 {
		tag = version[:i]
		notRelease = &ErrNotRelease{version, "a local build (build metadata " + version[i:] + ")"}
	} else if strings.HasSuffix(version, "-dirty") {
		tag = strings.TrimSuffix(version, "-dirty")
		notRelease = &ErrNotRelease{version, "a build from a modified tree"}
	}
	if !semverTag.MatchString(tag) {
		return Release{}, &ErrNotRelease{version, "not a v-prefixed semantic version"}
	}
	asset := fmt.Sprintf("%s_%s_%s_%s.tar.gz", minitia, tag, osName, arch)
	r := Release{
		Repo:  "initia-labs/" + minitia,
		Tag:   tag,
		Asset: asset,
		URL:   fmt.Sprintf("https://github.com/initia-labs/%s/releases/download/%s/%s", minitia, tag, asset),
	}
	return r, notRelease
}
