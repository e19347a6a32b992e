package importer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// SumsFile is the cache's list of digests, in sha256sum's format ("HEX
// NAME" a line): `sha256sum * > SHA256SUMS` in a cache filled by hand
// gives the same.
const SumsFile = "SHA256SUMS"

var sumLine = regexp.MustCompile(`^([0-9a-f]{64}) [ *](.+)$`)

// ReadSums reads dir's SumsFile; a cache without one has no known digests
// (nil, nil).
func ReadSums(dir string) (map[string]string, error) {
	f, err := os.Open(filepath.Join(dir, SumsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		m := sumLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not a sha256sum line (HEX  NAME): %q", filepath.Join(dir, SumsFile), n, line)
		}
		sums[m[2]] = m[1]
	}
	return sums, sc.Err()
}

func writeSums(dir string, sums map[string]string) error {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	tmp := filepath.Join(dir, "."+SumsFile+".tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, SumsFile))
}

// Fetched says what Fetch did with one file.
type Fetched struct {
	Download
	// Got is "downloaded", "cached" (present, its digest as recorded or
	// recorded now) or "" when it failed (Err).
	Got   string
	Bytes int64
	Err   error
}

// Fetch fills the cache dir with the files ds name, from their URLs: a
// file already there whose digest matches SHA256SUMS (or that has none
// recorded yet) is kept, any other is downloaded again. Each download
// goes to a temporary file renamed into place once whole, and SHA256SUMS
// is brought up to date after each file, so an interrupted fetch loses
// nothing done. progress, when set, hears of each file; the result lists
// every file, failures with their error.
func Fetch(ctx context.Context, dir string, ds []Download, client *http.Client, progress func(i, n int, f Fetched)) ([]Fetched, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("the files cache %s: %w", dir, err)
	}
	sums, err := ReadSums(dir)
	if err != nil {
		return nil, err
	}
	if sums == nil {
		sums = map[string]string{}
	}
	var out []Fetched
	for i, d := range ds {
		f := Fetched{Download: d}
		path := filepath.Join(dir, d.Name)
		if sum, n, err := hashFile(path); err == nil && (sums[d.Name] == "" || sums[d.Name] == sum) {
			f.Got, f.Bytes, f.SHA256 = "cached", n, sum
		} else if ctx.Err() != nil {
			f.Err = ctx.Err()
		} else if sum, n, err := download(ctx, client, d.URL, path); err != nil {
			f.Err = err
		} else {
			f.Got, f.Bytes, f.SHA256 = "downloaded", n, sum
		}
		if f.Err == nil && sums[d.Name] != f.SHA256 {
			sums[d.Name] = f.SHA256
			if err := writeSums(dir, sums); err != nil {
				return out, fmt.Errorf("write %s: %w", filepath.Join(dir, SumsFile), err)
			}
		}
		out = append(out, f)
		if progress != nil {
			progress(i+1, len(ds), f)
		}
	}
	return out, nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// download gets u into path, through a temporary file beside it.
func download(ctx context.Context, client *http.Client, u, path string) (string, int64, error) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" && p.Scheme != "https" {
		return "", 0, fmt.Errorf("%s: only http and https URLs are fetched", u)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("%s: the server answered %s", u, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", u, err)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", 0, fmt.Errorf("%s: got %d of %d bytes", u, n, resp.ContentLength)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// DistinctDownloads are the distinct files the imported tasks of cov need, by
// name.
func (cov *Coverage) DistinctDownloads() []Download {
	seen := map[string]bool{}
	var out []Download
	for _, t := range cov.Tasks {
		if t.Status == NotImported {
			continue
		}
		for _, d := range t.Downloads {
			if !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
