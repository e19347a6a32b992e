package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
)

// MaxJSONBytes bounds the JSON file a json check reads.
const MaxJSONBytes = 16 << 20

// checkJSON reads a JSON file, or a Mozilla prefs.js (json { path,
// format, subset, excludes, key_matches, has_item }): subset holds when
// the file's object has each of its keys with an equal value, excludes
// when it has none with an equal value, key_matches when each key's value
// is a string its pattern finds; has_item when an item of the file's list
// equals it (the file read again without its first line when it is not a
// list, as OSWorld reads VS Code's keybindings.json). Values compare as
// Python's == does.
func (a *Activities) checkJSON(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	fail := func(format string, args ...any) (string, *CheckResult, error) {
		return "", &CheckResult{Detail: fmt.Sprintf(format, args...)}, nil
	}
	if in.JSON == nil {
		return fail("json check without subset or has_item")
	}
	files, err := a.files()
	if err != nil {
		return fail("%s: %v", c.path, err)
	}
	b, err := readFile(ctx, files, c.path, MaxJSONBytes)
	if err != nil {
		return fail("%v", err)
	}
	shown := func(v any) string {
		out, _ := json.Marshal(v)
		return text.Trunc(c.red.String(string(out)), 200)
	}
	if in.JSON.HasItem == "" {
		return checkJSONObject(in.JSON, c.path, b, shown)
	}
	want, err := decodeJSON([]byte(in.JSON.HasItem))
	if err != nil {
		return fail("has_item: %v", err)
	}
	doc, err := decodeJSON(b)
	list, ok := doc.([]any)
	if !ok {
		// Without its first line (VS Code's comment atop keybindings.json).
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			if d, err2 := decodeJSON(b[i+1:]); err2 == nil {
				list, ok = d.([]any)
			}
		}
	}
	if !ok {
		if err != nil {
			return fail("%s is not a JSON list, with or without its first line: %v", c.path, err)
		}
		return fail("%s holds %s, not a list, with or without its first line", c.path, jsonKind(doc))
	}
	for _, item := range list {
		if pyEqual(item, want) {
			return "", &CheckResult{Passed: true, Detail: fmt.Sprintf("%s holds %s", c.path, shown(want))}, nil
		}
	}
	return fail("none of the %d items of %s is %s", len(list), c.path, shown(want))
}

// decodeJSON reads one JSON value, its numbers as written, and nothing
// after it.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("extra data after the JSON value")
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number, bool:
		return "a number or boolean"
	}
	return "null"
}

// pyEqual is Python's == on decoded JSON values: numbers and booleans by
// value (True == 1 == 1.0), strings, lists item by item, objects with the
// same keys and equal values, null only to null.
func pyEqual(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, has := y[k]
			if !has || !pyEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// number reads a JSON number or boolean as Python compares it.
func number(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewRat(1, 1), true
		}
		return new(big.Rat), true
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		return r, ok
	}
	return nil, false
}

// prefLine is a prefs.js line as OSWorld's check_thunderbird_prefs reads
// it (after trimming): user_pref("key", value);
var prefLine = regexp.MustCompile(`^user_pref\("((?:[^"]|\\")+)", (.+)\);$`)

type pair struct {
	key string
	val any
}

// objectPairs reads the file's key-value pairs: a JSON object's, or a
// prefs.js's user_pref lines (each value JSON), in order.
func objectPairs(format, path string, b []byte) ([]pair, error) {
	if format == "prefs" {
		var out []pair
		for _, line := range strings.Split(string(b), "\n") {
			m := prefLine.FindStringSubmatch(pyStrip(line))
			if m == nil {
				continue
			}
			v, err := decodeJSON([]byte(m[2]))
			if err != nil {
				return nil, fmt.Errorf("%s: the value of %s is not JSON (%v)", path, m[1], err)
			}
			out = append(out, pair{m[1], v})
		}
		return out, nil
	}
	doc, err := decodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not JSON: %v", path, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s holds %s, not an object", path, jsonKind(doc))
	}
	out := make([]pair, 0, len(obj))
	for _, k := range sortedKeys(obj) {
		out = append(out, pair{k, obj[k]})
	}
	return out, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pyStrip trims what Python's str.strip trims.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
	})
}

func checkJSONObject(j *plan.JSON, path string, b []byte, shown func(any) string) (string, *CheckResult, error) {
	fail := func(format string, args ...any) (string, *CheckResult, error) {
		return "", &CheckResult{Detail: fmt.Sprintf(format, args...)}, nil
	}
	pairs, err := objectPairs(j.Format, path, b)
	if err != nil {
		return fail("%v", err)
	}
	obj := make(map[string]any, len(pairs))
	for _, p := range pairs {
		obj[p.key] = p.val
	}
	want := func(name, text string) (map[string]any, error) {
		if text == "" {
			return nil, nil
		}
		v, err := decodeJSON([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not a JSON object", name)
		}
		return m, nil
	}
	subset, err := want("subset", j.Subset)
	if err != nil {
		return fail("%v", err)
	}
	excludes, err := want("excludes", j.Excludes)
	if err != nil {
		return fail("%v", err)
	}
	patterns, err := want("key_matches", j.KeyMatches)
	if err != nil {
		return fail("%v", err)
	}
	for _, k := range sortedKeys(subset) {
		got, has := obj[k]
		if !has {
			return fail("%s has no key %q (want %s)", path, k, shown(subset[k]))
		}
		if !pyEqual(got, subset[k]) {
			return fail("%s: %q is %s, want %s", path, k, shown(got), shown(subset[k]))
		}
	}
	for _, k := range sortedKeys(patterns) {
		pat, _ := patterns[k].(string)
		re, err := regexp.Compile(pat)
		if err != nil {
			return fail("key_matches: %q's pattern: %v", k, err)
		}
		got, has := obj[k]
		if !has {
			return fail("%s has no key %q (want a value matching %q)", path, k, pat)
		}
		s, isStr := got.(string)
		if !isStr || !re.MatchString(s) {
			return fail("%s: %q is %s, want a string matching %q", path, k, shown(got), pat)
		}
	}
	for _, p := range pairs {
		if w, has := excludes[p.key]; has && pyEqual(p.val, w) {
			return fail("%s: %q is %s, which it must not be", path, p.key, shown(p.val))
		}
	}
	return "", &CheckResult{Passed: true, Detail: fmt.Sprintf("%s holds %d keys as expected", path, len(subset)+len(patterns)+len(excludes))}, nil
}
