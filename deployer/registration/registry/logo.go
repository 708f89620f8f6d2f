package registry

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
)

// CheckLogo refuses a logo the registry would not serve as its images/<name>.png: it must
// decode as a PNG (the registry links it as image/png) and be at most MaxImageBytes, the
// size its CI allows.
func CheckLogo(b []byte) error {
	if len(b) > MaxImageBytes {
		return fmt.Errorf("%d bytes, over the registry's limit of %d", len(b), MaxImageBytes)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		// Name what the file looks like, so "a JPEG" reads better than a decoder's complaint.
		return fmt.Errorf("not a PNG image (its content looks like %s): %w", http.DetectContentType(b), err)
	}
	return nil
}
