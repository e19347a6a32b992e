package activities

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"log/slog"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// ErrTypeSecret is the error type of an action, setup step or check that
// holds a secret placeholder the worker has no value for: it is never typed
// or compared as it is.
const ErrTypeSecret = "UnresolvedSecret"

// Redactor replaces the values of sensitive variables with their
// placeholders. It is the one place where redaction happens: the worker
// passes every activity result and error through it (see
// worker.RedactInterceptor), and the activities pass through it what the
// device shows (element text, OCR words, window titles, the clipboard,
// the pixels of the screenshots) before it is stored or sent to the model,
// every model exchange they record, and every log record.
//
// Besides each value it masks the value's base64 forms (standard and URL,
// padded or not), its hex forms and its URL escape, so a command that
// prints an encoded secret does not leak it either; and the value in any
// letter case or split by white space (a line wrapped in an editor, an
// upper-cased field, a form that spaces characters out).
type Redactor struct {
	repl  *strings.Replacer
	names []string          // sorted
	forms map[string]string // form → placeholder, longest forms first in repl
	loose []looseForm       // longest values first
}

// looseForm matches a value in any case, with white space anywhere
// between its characters.
type looseForm struct {
	rx *regexp.Regexp
	ph string
}

// looseMin is the shortest value matched loosely: a shorter one would
// mask ordinary words in other cases.
const looseMin = 4

func loosePattern(v string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?i)")
	for i, c := range v {
		if i > 0 {
			b.WriteString(`\s*`)
		}
		b.WriteString(regexp.QuoteMeta(string(c)))
	}
	return regexp.MustCompile(b.String())
}

// NewRedactor returns a Redactor for the given name → value secrets.
func NewRedactor(secrets map[string]string) *Redactor {
	r := &Redactor{forms: map[string]string{}}
	for name, v := range secrets {
		r.names = append(r.names, name)
		if v == "" {
			continue
		}
		ph := plan.SecretPlaceholder(name)
		for _, f := range []string{v,
			base64.StdEncoding.EncodeToString([]byte(v)), base64.RawStdEncoding.EncodeToString([]byte(v)),
			base64.URLEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)),
			url.QueryEscape(v), hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))),
			strings.ToUpper(v), strings.ToLower(v)} {
			if old, ok := r.forms[f]; !ok || ph < old {
				r.forms[f] = ph
			}
		}
		if len([]rune(v)) >= looseMin {
			r.loose = append(r.loose, looseForm{loosePattern(v), ph})
		}
	}
	sort.Slice(r.loose, func(i, j int) bool {
		if a, b := len(r.loose[i].rx.String()), len(r.loose[j].rx.String()); a != b {
			return a > b
		}
		return r.loose[i].ph < r.loose[j].ph
	})
	sort.Strings(r.names)
	forms := make([]string, 0, len(r.forms))
	for f := range r.forms {
		forms = append(forms, f)
	}
	// At one position the first matching old string wins: longest first,
	// so a secret that contains another is masked whole.
	sort.Slice(forms, func(i, j int) bool {
		if len(forms[i]) != len(forms[j]) {
			return len(forms[i]) > len(forms[j])
		}
		return forms[i] < forms[j]
	})
	var pairs []string
	for _, f := range forms {
		pairs = append(pairs, f, r.forms[f])
	}
	if len(pairs) > 0 {
		r.repl = strings.NewReplacer(pairs...)
	}
	return r
}

// Empty reports whether there is nothing to redact.
func (r *Redactor) Empty() bool { return r == nil || r.repl == nil }

// String returns s with every secret replaced by its placeholder.
func (r *Redactor) String(s string) string {
	if r.Empty() || s == "" {
		return s
	}
	s = r.repl.Replace(s)
	for _, l := range r.loose {
		s = l.rx.ReplaceAllLiteralString(s, l.ph)
	}
	return s
}

// Holds reports whether s contains a secret.
func (r *Redactor) Holds(s string) bool { return r.String(s) != s }

// Value redacts, in place, every string reachable from v through pointers,
// structs, slices, arrays, maps and interfaces. v is usually a pointer to
// an activity result.
func (r *Redactor) Value(v any) {
	if r.Empty() || v == nil {
		return
	}
	r.walk(reflect.ValueOf(v))
}

// walk redacts the strings under v and reports whether it changed any.
// It writes only what changes, so values shared with other goroutines
// (tool schemas, say) are only read.
func (r *Redactor) walk(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return false
		}
		return r.walk(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return false
		}
		// The value inside an interface cannot be set: redact a copy.
		e := v.Elem()
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		if !r.walk(c) {
			return false
		}
		if v.CanSet() {
			v.Set(c)
		}
		return true
	case reflect.String:
		red := r.String(v.String())
		if red == v.String() {
			return false
		}
		if v.CanSet() {
			v.SetString(red)
		}
		return true
	case reflect.Struct:
		changed := false
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && r.walk(v.Field(i)) {
				changed = true
			}
		}
		return changed
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return false // bytes: images and the like
		}
		changed := false
		for i := 0; i < v.Len(); i++ {
			if r.walk(v.Index(i)) {
				changed = true
			}
		}
		return changed
	case reflect.Map:
		if v.IsNil() {
			return false
		}
		changed := false
		for _, k := range v.MapKeys() {
			val := v.MapIndex(k)
			nv := reflect.New(val.Type()).Elem()
			nv.Set(val)
			vc := r.walk(nv)
			nk, kc := k, false
			if k.Kind() == reflect.String {
				if s := r.String(k.String()); s != k.String() {
					nk = reflect.New(k.Type()).Elem()
					nk.SetString(s)
					kc = true
				}
			}
			if !vc && !kc {
				continue
			}
			changed = true
			if kc {
				v.SetMapIndex(k, reflect.Value{})
			}
			v.SetMapIndex(nk, nv)
		}
		return changed
	}
	return false
}

// JSON returns the JSON document b with every secret in its strings
// replaced (b itself is not changed).
func (r *Redactor) JSON(b []byte) ([]byte, error) {
	if r.Empty() {
		return b, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("redact: %w", err)
	}
	r.Value(&v)
	return json.Marshal(v)
}

// Error returns err with every secret in its message replaced; an
// application error keeps its type and retryability, a cancellation stays
// one. A nil error stays nil.
func (r *Redactor) Error(err error) error {
	if err == nil || r.Empty() {
		return err
	}
	msg := err.Error()
	if !r.Holds(msg) {
		return err
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		// The cause's text is part of msg: keep the redacted message only.
		// Keep the details (the usage of a failed model call), redacted too.
		opts := temporal.ApplicationErrorOptions{NonRetryable: app.NonRetryable(), NextRetryDelay: app.NextRetryDelay()}
		var detail any
		if app.HasDetails() && app.Details(&detail) == nil {
			if b, err := json.Marshal(detail); err == nil {
				opts.Details = []any{json.RawMessage(r.String(string(b)))}
			}
		}
		return temporal.NewApplicationErrorWithOptions(r.String(app.Message()), app.Type(), opts)
	}
	red := &redactedError{msg: r.String(msg)}
	for _, c := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, c) {
			red.ctx = c
		}
	}
	return red
}

// redactedError is an error whose text had a secret. It does not unwrap to
// the original (Temporal stores a whole cause chain), but still answers
// errors.Is for a context error.
type redactedError struct {
	msg string
	ctx error
}

func (e *redactedError) Error() string { return e.msg }

func (e *redactedError) Is(target error) bool { return e.ctx != nil && target == e.ctx }

// Screen redacts, in place, the text of an observation (element names and
// values, OCR words, window titles, the clipboard) and masks on the image
// the boxes of the elements, words and title bars that showed a secret. OCR that the
// device deferred is run first, since the pixels may show a secret that no
// element names. A secret split across boxes — OCR words or text
// elements side by side on one row ("hunter" and "2pass") — is found
// in their joined text, and every box that holds part of it is redacted.
func (r *Redactor) Screen(s *screen.Screen) {
	if r.Empty() || s == nil {
		return
	}
	var boxes []screen.Rect
	for i := range s.Elements {
		e := &s.Elements[i]
		if r.Holds(e.Name) || r.Holds(e.Value) {
			boxes = append(boxes, e.Box)
			e.Name, e.Value = r.String(e.Name), r.String(e.Value)
		}
	}
	els := s.Elements
	boxes = append(boxes, r.splitRuns(len(els), func(i int) *string { return &els[i].Name }, func(i int) screen.Rect { return els[i].Box })...)
	words := s.Words
	boxes = append(boxes, r.wordRuns(words)...)
	for i := range words {
		words[i].Text = r.String(words[i].Text)
	}
	for i := range s.TitleBars {
		if t := &s.TitleBars[i]; r.Holds(t.Title) {
			boxes = append(boxes, t.Box)
			t.Title = r.String(t.Title)
		}
	}
	s.ActiveWindow = r.String(s.ActiveWindow)
	for i := range s.Windows {
		s.Windows[i] = r.String(s.Windows[i])
	}
	s.Clipboard = r.String(s.Clipboard)
	if len(boxes) > 0 && s.Image != nil {
		s.Image = Mask(s.Image, boxes)
	}
}

// wordRuns finds the secrets among OCR words: a word that holds one, or a
// run of words whose text joined with or without spaces does (OCR splits
// a value at its spaces and sometimes inside it), consecutive in the
// words' order or side by side on one row. The words of a run are
// replaced by the placeholder; their boxes are returned.
func (r *Redactor) wordRuns(words []screen.Word) []screen.Rect {
	var boxes []screen.Rect
	for i := range words {
		if r.Holds(words[i].Text) {
			boxes = append(boxes, words[i].Box)
		}
	}
	text := func(i int) *string { return &words[i].Text }
	box := func(i int) screen.Rect { return words[i].Box }
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	boxes = append(boxes, r.runsIn(order, text, box)...)
	return append(boxes, r.splitRuns(len(words), text, box)...)
}

// maxRun is the most boxes a split secret is looked for across.
const maxRun = 8

// splitRuns finds secrets split across boxes on one row (see rows): of n
// boxes, text(i) is the i-th one's text and box(i) its place.
func (r *Redactor) splitRuns(n int, text func(int) *string, box func(int) screen.Rect) []screen.Rect {
	var boxes []screen.Rect
	for _, row := range rows(n, box) {
		if len(row) > 1 {
			boxes = append(boxes, r.runsIn(row, text, box)...)
		}
	}
	return boxes
}

// runsIn looks for secrets in runs of consecutive boxes of seq (indices),
// their texts joined with and without spaces. The first box of a match
// gets the redacted joined text, the others none; the boxes' union is
// returned for each match.
func (r *Redactor) runsIn(seq []int, text func(int) *string, box func(int) screen.Rect) []screen.Rect {
	var boxes []screen.Rect
	for a := 0; a < len(seq); a++ {
		first := *text(seq[a])
		if first == "" || r.Holds(first) {
			continue
		}
		joined, spaced := first, first
		for b := a + 1; b < len(seq) && b < a+maxRun; b++ {
			t := *text(seq[b])
			if t == "" {
				continue
			}
			joined += t
			spaced += " " + t
			if !r.Holds(joined) && !r.Holds(spaced) {
				continue
			}
			// The run starts where the secret does: boxes before it
			// ("Password:") keep their text.
			for a < b && r.holdsRun(seq[a+1:b+1], text) {
				a++
			}
			joined, spaced = r.joinRun(seq[a:b+1], text)
			u := box(seq[a])
			for k := a + 1; k <= b; k++ {
				u = u.Union(box(seq[k]))
			}
			boxes = append(boxes, u)
			red := r.String(spaced)
			if red == spaced {
				red = r.String(joined)
			}
			*text(seq[a]) = red
			for k := a + 1; k <= b; k++ {
				*text(seq[k]) = ""
			}
			a = b
			break
		}
	}
	return boxes
}

// joinRun is the texts of a run of boxes joined without and with spaces.
func (r *Redactor) joinRun(run []int, text func(int) *string) (joined, spaced string) {
	var parts []string
	for _, i := range run {
		if t := *text(i); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, ""), strings.Join(parts, " ")
}

// holdsRun reports whether a run of boxes holds a secret in its joined
// text.
func (r *Redactor) holdsRun(run []int, text func(int) *string) bool {
	joined, spaced := r.joinRun(run, text)
	return r.Holds(joined) || r.Holds(spaced)
}

// rows groups n boxes into rows of text: boxes whose vertical middles
// lie within each other's height, each row ordered left to right.
func rows(n int, box func(int) screen.Rect) [][]int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		_, ya := box(idx[a]).Center()
		_, yb := box(idx[b]).Center()
		return ya < yb
	})
	var out [][]int
	for _, i := range idx {
		b := box(i)
		_, y := b.Center()
		if k := len(out) - 1; k >= 0 {
			h := box(out[k][0])
			_, hy := h.Center()
			if y >= h.Y && y <= h.Y+h.H && hy >= b.Y && hy <= b.Y+b.H {
				out[k] = append(out[k], i)
				continue
			}
		}
		out = append(out, []int{i})
	}
	for _, row := range out {
		sort.SliceStable(row, func(a, b int) bool { return box(row[a]).X < box(row[b]).X })
	}
	return out
}

// Mask returns a copy of img with the boxes painted over, so a secret shown
// on screen is not stored or sent to the model as pixels.
func Mask(img image.Image, boxes []screen.Rect) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	fill := &image.Uniform{color.RGBA{40, 40, 40, 255}}
	for _, x := range boxes {
		r := image.Rect(x.X-2, x.Y-2, x.X+x.W+2, x.Y+x.H+2).Intersect(b)
		draw.Draw(out, r, fill, image.Point{}, draw.Src)
	}
	return out
}

// Resolve replaces secret placeholders with their values. A placeholder
// with no value here is an error of type ErrTypeSecret, so it is never
// typed, run or compared as text.
func (r *Redactor) Resolve(s string, secrets map[string]string) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var missing []string
	out := plan.SecretPattern.ReplaceAllStringFunc(s, func(m string) string {
		name := plan.SecretPattern.FindStringSubmatch(m)[1]
		if v, ok := secrets[name]; ok {
			return v
		}
		missing = append(missing, m)
		return m
	})
	if len(missing) > 0 {
		known := "none"
		if len(r.names) > 0 {
			known = strings.Join(r.names, ", ")
		}
		return "", temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"%s has no value on this worker (secrets it holds: %s): it was not typed or used. "+
				"Start the worker with the task's sensitive variables (pcflow worker --secrets-from TASK.hcl --var NAME=VALUE), "+
				"or fix the name", strings.Join(missing, ", "), known), ErrTypeSecret, nil)
	}
	return out, nil
}

// Handler wraps h so that every log message and attribute is redacted.
func (r *Redactor) Handler(h slog.Handler) slog.Handler {
	if r.Empty() {
		return h
	}
	return redactHandler{h: h, r: r}
}

type redactHandler struct {
	h slog.Handler
	r *Redactor
}

func (h redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.r.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.r.attr(a)
	}
	return redactHandler{h: h.h.WithAttrs(red), r: h.r}
}

func (h redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{h: h.h.WithGroup(name), r: h.r}
}

func (r *Redactor) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = r.attr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, r.String(err.Error()))
		}
		return slog.String(a.Key, r.String(fmt.Sprint(v.Any())))
	}
	return a
}
