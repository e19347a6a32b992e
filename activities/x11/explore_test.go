package x11

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	ctx := context.Background()
	d, err := Up(ctx, DesktopOptions{Display: ":95", StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Down()
	d.Apply()
	dev, _ := New()
	for _, app := range []string{os.Getenv("EXPLORE")} {
		dev.Launch(ctx, []string{app})
		time.Sleep(4 * time.Second)
		start := time.Now()
		s, err := dev.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("observe", time.Since(start), "active", s.ActiveWindow, s.Windows, len(s.Elements))
		for _, e := range s.Elements {
			fmt.Println(e.Label(), e.States, e.Source)
		}
	}
}
