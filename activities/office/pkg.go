package office

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// Limits on what a package may make a reader do, so that a hostile file
// (a zip bomb, a part nested a million elements deep, a deck of a million
// empty slides) fails with a message instead of filling memory or running
// for hours. Real files stay far below them.
const (
	// maxPartBytes bounds one part once unpacked.
	maxPartBytes = 64 << 20
	// maxPackageBytes bounds all the parts one file's reading unpacks.
	maxPackageBytes = 256 << 20
	// maxDepth bounds how deep a part's elements nest.
	maxDepth = 256
	// maxSlides bounds the slides a presentation may list.
	maxSlides = 10000
)

// pkg is a zip package whose parts are read within the limits above.
type pkg struct {
	path  string
	zr    *zip.ReadCloser
	files map[string]*zip.File
	read  int64 // bytes unpacked so far
}

func openPkg(path string) (*pkg, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a zip package (%w)", path, err)
	}
	p := &pkg{path: path, zr: zr, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		p.files[f.Name] = f
	}
	return p, nil
}

func (p *pkg) Close() error { return p.zr.Close() }

func (p *pkg) has(name string) bool { _, ok := p.files[name]; return ok }

// What a part's reader returns past its share of the limits.
var (
	errPartTooBig    = errors.New("part too big")
	errPackageTooBig = errors.New("package too big")
)

// part opens a part for reading; reading it past maxPartBytes, or past what
// is left of maxPackageBytes, fails.
func (p *pkg) part(name string) (io.ReadCloser, error) {
	f, ok := p.files[name]
	if !ok {
		return nil, fmt.Errorf("%s: no %s inside (is it really this format?)", p.path, name)
	}
	if f.UncompressedSize64 > maxPartBytes {
		return nil, fmt.Errorf("%s: %s unpacks to %d MiB, more than the %d MiB a part may hold", p.path, name, f.UncompressedSize64>>20, maxPartBytes>>20)
	}
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p.path, name, err)
	}
	return &boundedReader{rc: r, p: p, left: maxPartBytes}, nil
}

type boundedReader struct {
	rc   io.ReadCloser
	p    *pkg
	left int64
}

func (b *boundedReader) Read(buf []byte) (int, error) {
	if b.left <= 0 {
		return 0, errPartTooBig
	}
	if b.p.read >= maxPackageBytes {
		return 0, errPackageTooBig
	}
	if n := min(b.left, maxPackageBytes-b.p.read); int64(len(buf)) > n {
		buf = buf[:n]
	}
	n, err := b.rc.Read(buf)
	b.left -= int64(n)
	b.p.read += int64(n)
	return n, err
}

func (b *boundedReader) Close() error { return b.rc.Close() }

// tokens reads one part's XML tokens, refusing elements nested deeper than
// maxDepth. Errors name the file and the part.
type tokens struct {
	dec   *xml.Decoder
	depth int
	where string // "file: part"
}

func (p *pkg) tokens(r io.Reader, name string) *tokens {
	return &tokens{dec: xml.NewDecoder(r), where: p.path + ": " + name}
}

// next returns the next token, io.EOF at the end.
func (t *tokens) next() (xml.Token, error) {
	tok, err := t.dec.Token()
	if err == io.EOF {
		return nil, err
	}
	if err != nil {
		switch {
		case errors.Is(err, errPartTooBig):
			return nil, fmt.Errorf("%s: unpacks to more than the %d MiB a part may hold (a zip bomb?)", t.where, maxPartBytes>>20)
		case errors.Is(err, errPackageTooBig):
			return nil, fmt.Errorf("%s: the file unpacks to more than %d MiB in all (a zip bomb?)", t.where, maxPackageBytes>>20)
		}
		return nil, fmt.Errorf("%s: %w", t.where, err)
	}
	switch tok.(type) {
	case xml.StartElement:
		t.depth++
		if t.depth > maxDepth {
			return nil, fmt.Errorf("%s: elements nest more than %d deep", t.where, maxDepth)
		}
	case xml.EndElement:
		t.depth--
	}
	return tok, nil
}

// skip consumes the rest of the element whose start was just read.
func (t *tokens) skip() error {
	for d := 1; d > 0; {
		tok, err := t.next()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			d++
		case xml.EndElement:
			d--
		}
	}
	return nil
}

// walk reads a part's tokens with fn until the end.
func (p *pkg) walk(name string, fn func(t *tokens, tok xml.Token) error) error {
	r, err := p.part(name)
	if err != nil {
		return err
	}
	defer r.Close()
	t := p.tokens(r, name)
	for {
		tok, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(t, tok); err != nil {
			return err
		}
	}
}

const nsRel = "http://schemas.openxmlformats.org/package/2006/relationships"

// rels reads the relationships of part: id → type and target part name.
func (p *pkg) rels(part string) (map[string][2]string, error) {
	dir, base := path.Split(part)
	name := dir + "_rels/" + base + ".rels"
	out := map[string][2]string{}
	if !p.has(name) {
		return out, nil
	}
	err := p.walk(name, func(_ *tokens, tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok || t.Name.Local != "Relationship" || attr(t, "", "TargetMode") == "External" {
			return nil
		}
		target := attr(t, "", "Target")
		if strings.HasPrefix(target, "/") {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Join(dir, target)
		}
		out[attr(t, "", "Id")] = [2]string{attr(t, "", "Type"), target}
		return nil
	})
	return out, err
}

// relOfType returns the target of the first relationship whose type ends
// with kind ("/notesSlide"); "" when there is none.
func relOfType(rels map[string][2]string, kind string) string {
	for _, id := range sortedKeys(rels) {
		if strings.HasSuffix(rels[id][0], kind) {
			return rels[id][1]
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
