// Package keyfile keeps a secret key in a file of its own, readable by its
// owner only, made on first use. Processes that make it at the same moment
// all end up with the one key that was made first, and none ever reads it
// half written: it is written whole into a temporary file and linked into
// place, which fails when the key is already there.
package keyfile

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
)

// Load returns the key of size bytes at path, making it when there is
// none; fresh says this call made it. A key file of another size is an
// error: what it sealed cannot be trusted, and the caller says what to do.
func Load(path string, size int) (key []byte, fresh bool, err error) {
	if b, err := os.ReadFile(path); err == nil {
		if len(b) != size {
			return nil, false, fmt.Errorf("the key %s is damaged (%d bytes, not %d)", path, len(b), size)
		}
		return b, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, err
	}
	key = make([]byte, size)
	if _, err := rand.Read(key); err != nil {
		return nil, false, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(key)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, false, err
	}
	if err := os.Link(tmp, path); err != nil {
		if os.IsExist(err) { // another process made it first
			return Load(path, size)
		}
		return nil, false, err
	}
	return key, true, nil
}
