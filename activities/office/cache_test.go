package office_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/office"
)

// countingConv "converts" by copying and counts its calls.
type countingConv struct{ n int }

func (c *countingConv) Convert(_ context.Context, path, format, dir string) (string, error) {
	c.n++
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "out."+format)
	return out, os.WriteFile(out, b, 0o644)
}

// TestCacheConvertsEachVersionOnce: a file is converted once however often
// it is asked for, every caller gets its own copy in its own folder, and a
// file that changed is converted again.
func TestCacheConvertsEachVersionOnce(t *testing.T) {
	src := filepath.Join(t.TempDir(), "a.ods")
	if err := os.WriteFile(src, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	inner := &countingConv{}
	c := &office.Cache{Conv: inner}
	defer c.Close()
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		out, err := c.Convert(context.Background(), src, "xlsx", dir)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); string(b) != "one" || filepath.Dir(out) != dir {
			t.Fatalf("Convert = %s holding %q, want a copy of the conversion in %s", out, b, dir)
		}
	}
	if inner.n != 1 {
		t.Errorf("converted %d times, want 1", inner.n)
	}
	if err := os.WriteFile(src, []byte("two!"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(src, time.Now().Add(time.Second), time.Now().Add(time.Second))
	out, err := c.Convert(context.Background(), src, "xlsx", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "two!" || inner.n != 2 {
		t.Errorf("after a change: %q after %d conversions, want the new content after 2", b, inner.n)
	}
}
