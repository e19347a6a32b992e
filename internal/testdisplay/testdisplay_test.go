package testdisplay

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestReserveIsExclusive: a display reserved in one process is not handed
// to another process while the first holds it, and is free again once
// that process has ended.
func TestReserveIsExclusive(t *testing.T) {
	if os.Getenv("TESTDISPLAY_CHILD") != "" {
		os.Stdout.WriteString(Reserve(t) + "\n")
		if os.Getenv("TESTDISPLAY_CHILD") == "hold" {
			os.Stdin.Read(make([]byte, 1)) // until the parent closes stdin
		}
		return
	}
	mine := Reserve(t)
	// Every child tries the number this process holds first: only the
	// lock keeps them off it.
	t.Setenv(startEnv, strings.TrimPrefix(mine, ":"))
	other := func() string {
		t.Helper()
		c := exec.Command(os.Args[0], "-test.run", "^TestReserveIsExclusive$")
		c.Env = append(os.Environ(), "TESTDISPLAY_CHILD=once")
		out, err := c.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		return strings.Fields(string(out))[0]
	}
	// Ten processes, one after another, each given a display: never mine.
	for i := 0; i < 10; i++ {
		if d := other(); d == mine {
			t.Fatalf("another process was given %s, which this one holds", d)
		}
	}
	// A child that holds its display while a second child asks: the
	// second gets another.
	holder := exec.Command(os.Args[0], "-test.run", "^TestReserveIsExclusive$")
	holder.Env = append(os.Environ(), "TESTDISPLAY_CHILD=hold")
	in, _ := holder.StdinPipe()
	outp, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := outp.Read(buf)
	held := strings.TrimSpace(string(buf[:n]))
	for i := 0; i < 5; i++ {
		if d := other(); d == held || d == mine {
			t.Fatalf("a process was given %s while another held it (held %s, mine %s)", d, held, mine)
		}
	}
	in.Close()
	holder.Wait()
}
