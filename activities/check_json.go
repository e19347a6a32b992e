package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"sort"

	"github.com/pcflow/pcflow/internal/text"
)

// MaxJSONBytes bounds the JSON file a json check reads.
const MaxJSONBytes = 16 << 20

// checkJSON reads a JSON file (json { path, subset, has_item }): subset
// holds when the file's object has each of its keys with an equal value,
// has_item when an item of the file's list equals it (the file read again
// without its first line when it is not a list, as OSWorld reads VS
// Code's keybindings.json). Values compare as Python's == does.
func (a *Activities) checkJSON(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	fail := func(format string, args ...any) (string, *CheckResult, error) {
		return "", &CheckResult{Detail: fmt.Sprintf(format, args...)}, nil
	}
	if in.JSON == nil {
		return fail("json check without subset or has_item")
	}
	b, err := readBounded(c.path, MaxJSONBytes)
	if err != nil {
		return fail("%v", err)
	}
	shown := func(v any) string {
		out, _ := json.Marshal(v)
		return text.Trunc(c.red.String(string(out)), 200)
	}
	if in.JSON.Subset != "" {
		want, err := decodeJSON([]byte(in.JSON.Subset))
		if err != nil {
			return fail("subset: %v", err)
		}
		doc, err := decodeJSON(b)
		if err != nil {
			return fail("%s is not JSON: %v", c.path, err)
		}
		obj, ok := doc.(map[string]any)
		if !ok {
			return fail("%s holds %s, not an object", c.path, jsonKind(doc))
		}
		wantObj := want.(map[string]any)
		keys := make([]string, 0, len(wantObj))
		for k := range wantObj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			got, has := obj[k]
			if !has {
				return fail("%s has no key %q (want %s)", c.path, k, shown(wantObj[k]))
			}
			if !pyEqual(got, wantObj[k]) {
				return fail("%s: %q is %s, want %s", c.path, k, shown(got), shown(wantObj[k]))
			}
		}
		return "", &CheckResult{Passed: true, Detail: fmt.Sprintf("%s holds %d keys as expected", c.path, len(keys))}, nil
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

// readBounded reads a file of at most max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, max>>20)
	}
	return b, nil
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
