// Package artifacts is the content-addressed store for screenshots,
// annotated images, element lists and model exchanges. Workflow history
// carries only the references it returns.
package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir stores artifacts as files named by their SHA-256 under a directory.
// Putting the same content twice stores it once.
type Dir struct {
	Root string
}

// Put stores data and returns its reference, "sha256-HEX.EXT".
func (d Dir) Put(data []byte, ext string) (string, error) {
	sum := sha256.Sum256(data)
	ref := "sha256-" + hex.EncodeToString(sum[:]) + "." + strings.TrimPrefix(ext, ".")
	path := d.Path(ref)
	if _, err := os.Stat(path); err == nil {
		return ref, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("artifact store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".put-*")
	if err != nil {
		return "", fmt.Errorf("artifact store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("artifact store: %w", err)
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("artifact store: %w", err)
	}
	return ref, nil
}

// Get reads an artifact by reference.
func (d Dir) Get(ref string) ([]byte, error) {
	b, err := os.ReadFile(d.Path(ref))
	if err != nil {
		return nil, fmt.Errorf("artifact %s: %w", ref, err)
	}
	return b, nil
}

// Path is where ref lives on disk.
func (d Dir) Path(ref string) string {
	name := filepath.Base(ref)
	shard := "xx"
	if h := strings.TrimPrefix(name, "sha256-"); len(h) >= 2 {
		shard = h[:2]
	}
	return filepath.Join(d.Root, shard, name)
}
