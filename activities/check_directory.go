package activities

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// checkDirectory checks a directory on the device: directory { path,
// exists, entries, same_as }.
func (a *Activities) checkDirectory(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	files, err := a.files()
	if err != nil {
		return "", &CheckResult{Detail: fmt.Sprintf("%s: %v", in.Path, err)}, nil
	}
	fi, err := files.Stat(ctx, c.path)
	exists := err == nil && fi.IsDir()
	if in.Exists != nil && *in.Exists != exists {
		what := "does not exist"
		if err == nil && !fi.IsDir() {
			what = "is a file, not a directory"
		} else if exists {
			what = "exists"
		}
		return "", &CheckResult{Detail: fmt.Sprintf("%s %s; want exists=%v", in.Path, what, *in.Exists)}, nil
	}
	if !exists {
		if in.Exists != nil && !*in.Exists {
			return "", &CheckResult{Passed: true, Detail: in.Path + " does not exist"}, nil
		}
		return "", &CheckResult{Detail: fmt.Sprintf("%s is not a directory: %v", in.Path, err)}, nil
	}
	if len(in.Entries) > 0 {
		var missing []string
		for _, e := range in.Entries {
			wantDir := strings.HasSuffix(e, "/")
			fi, err := files.Stat(ctx, filepath.Join(c.path, filepath.FromSlash(e)))
			if err != nil || (wantDir && !fi.IsDir()) {
				missing = append(missing, e)
			}
		}
		if len(missing) > 0 {
			have, _ := tree(ctx, files, c.path)
			return "", &CheckResult{Detail: fmt.Sprintf("%s lacks %s (it holds: %s)", in.Path, strings.Join(missing, ", "), listing(have, 20))}, nil
		}
	}
	if in.SameAs != "" {
		got, err := tree(ctx, files, c.path)
		if err != nil {
			return "", &CheckResult{Detail: err.Error()}, nil
		}
		want, err := tree(ctx, files, in.SameAs)
		if err != nil {
			return "", &CheckResult{Detail: "reference directory: " + err.Error()}, nil
		}
		var onlyGot, onlyWant, differ []string
		for p, g := range got {
			w, ok := want[p]
			switch {
			case !ok:
				onlyGot = append(onlyGot, p)
			case !bytes.Equal(g, w) || (g == nil) != (w == nil):
				differ = append(differ, p)
			}
		}
		for p := range want {
			if _, ok := got[p]; !ok {
				onlyWant = append(onlyWant, p)
			}
		}
		var parts []string
		for _, x := range []struct {
			what string
			l    []string
		}{{"missing", onlyWant}, {"extra", onlyGot}, {"different content", differ}} {
			if len(x.l) > 0 {
				sort.Strings(x.l)
				parts = append(parts, x.what+": "+listing(x.l, 10))
			}
		}
		if len(parts) > 0 {
			return "", &CheckResult{Detail: fmt.Sprintf("%s differs from %s — %s", in.Path, in.SameAs, strings.Join(parts, "; "))}, nil
		}
	}
	return "", &CheckResult{Passed: true, Detail: "ok"}, nil
}

// tree maps the relative paths under root, a directory of the device,
// to their contents (nil for a directory, whose path ends in /).
func tree(ctx context.Context, files Files, root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := files.WalkDir(ctx, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		if len(out) > 10000 {
			return fmt.Errorf("%s holds more than 10,000 entries", root)
		}
		b, err := readFile(ctx, files, p, 0)
		if err != nil {
			return err
		}
		out[rel] = b
		return nil
	})
	return out, err
}

func listing(m any, n int) string {
	var l []string
	switch x := m.(type) {
	case map[string][]byte:
		for k := range x {
			l = append(l, k)
		}
	case []string:
		l = x
	}
	sort.Strings(l)
	if len(l) == 0 {
		return "nothing"
	}
	if len(l) > n {
		return strings.Join(l[:n], ", ") + fmt.Sprintf(" and %d more", len(l)-n)
	}
	return strings.Join(l, ", ")
}
