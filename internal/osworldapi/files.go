package osworldapi

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// confine opens p under the roots: the root that holds it lexically,
// opened as an os.Root, and the path inside it. "~/" is the first root
// (the task's home). os.Root refuses ".." and links that leave it, so a
// path that names a root but resolves elsewhere is refused too.
func (s *Server) confine(p string) (*os.Root, string, error) {
	if len(s.o.Roots) == 0 {
		return nil, "", errors.New("this server serves no files (no roots)")
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		p = filepath.Join(s.o.Roots[0], rest)
	}
	if strings.ContainsAny(p, "$\x00") {
		return nil, "", fmt.Errorf("path %q: variables are not expanded; give the path itself", p)
	}
	if !filepath.IsAbs(p) {
		return nil, "", fmt.Errorf("path %q is not absolute", p)
	}
	// The root the path starts with; the rest, as given, is os.Root's
	// to judge (its "..", its links).
	for _, root := range s.o.Roots {
		root = filepath.Clean(root)
		rel, ok := strings.CutPrefix(p, root)
		if !ok || rel != "" && rel[0] != '/' {
			continue
		}
		if rel = strings.TrimLeft(rel, "/"); rel == "" {
			rel = "."
		}
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, "", fmt.Errorf("root %s: %w", root, err)
		}
		return r, rel, nil
	}
	return nil, "", fmt.Errorf("path %q is outside the folders this server serves (%s)", p, strings.Join(s.o.Roots, ", "))
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	p, err := formValue(r, "file_path")
	if err != nil {
		refuse(w, http.StatusBadRequest, "/file: "+err.Error())
		return
	}
	root, rel, err := s.confine(p)
	if err != nil {
		refuse(w, http.StatusForbidden, "/file: "+err.Error())
		return
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		code := http.StatusForbidden
		if errors.Is(err, fs.ErrNotExist) {
			code = http.StatusNotFound
		}
		refuse(w, code, fmt.Sprintf("/file %s: %v", p, err))
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		refuse(w, http.StatusBadRequest, fmt.Sprintf("/file %s is not a regular file", p))
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", path.Base(filepath.ToSlash(p))))
	if _, err := io.Copy(w, f); err != nil {
		s.o.Logger.Warn("osworld api file", "path", p, "err", err)
	}
}

type listRequest struct {
	Path string `json:"path"`
}

// treeNode is one entry of OSWorld's directory_tree.
type treeNode struct {
	Type     string      `json:"type"`
	Name     string      `json:"name"`
	Children []*treeNode `json:"children,omitempty"`
}

const maxListed = 10000

func (s *Server) listDirectory(w http.ResponseWriter, r *http.Request) {
	var req listRequest
	if !readJSON(w, r, &req) {
		return
	}
	if req.Path == "" {
		refuse(w, http.StatusBadRequest, "Missing 'path' parameter")
		return
	}
	root, rel, err := s.confine(req.Path)
	if err != nil {
		refuse(w, http.StatusForbidden, "/list_directory: "+err.Error())
		return
	}
	defer root.Close()
	if fi, err := root.Stat(rel); err != nil || !fi.IsDir() {
		refuse(w, http.StatusBadRequest, "The provided path is not a directory")
		return
	}
	top := &treeNode{Type: "directory", Name: filepath.Base(filepath.Clean(req.Path)), Children: []*treeNode{}}
	dirs := map[string]*treeNode{rel: top}
	n := 0
	err = fs.WalkDir(root.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: left out, as OSWorld's server does
		}
		if p == rel {
			return nil
		}
		if n++; n > maxListed {
			return fmt.Errorf("more than %d entries under %s", maxListed, req.Path)
		}
		parent := dirs[path.Dir(p)]
		if parent == nil {
			return nil
		}
		node := &treeNode{Type: "file", Name: d.Name()}
		if d.IsDir() {
			node.Type, node.Children = "directory", []*treeNode{}
			dirs[p] = node
		}
		parent.Children = append(parent.Children, node)
		return nil
	})
	if err != nil {
		refuse(w, http.StatusBadRequest, "/list_directory: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"directory_tree": top})
}
