package freeport

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestPickAcrossProcesses: while one process holds the ports it picked
// (a server starting), another process never picks one of them — without
// the lock files, 1000 picks each from the 10000 ports of PickNow's range
// meet about 100 times.
func TestPickAcrossProcesses(t *testing.T) {
	if os.Getenv("PCFLOW_FREEPORT_CHILD") == "1" {
		for range 1000 {
			p, err := PickNow("127.0.0.1")
			if err != nil {
				fmt.Println("error", err)
				return
			}
			fmt.Println(p)
		}
		fmt.Println("done")
		io.Copy(io.Discard, os.Stdin) // hold the ports until the parent is done
		return
	}
	child := exec.Command(os.Args[0], "-test.run=^TestPickAcrossProcesses$")
	child.Env = append(os.Environ(), "PCFLOW_FREEPORT_CHILD=1")
	in, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer in.Close()
	theirs := map[int]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if line == "done" {
			break
		}
		p, err := strconv.Atoi(line)
		if err != nil {
			t.Fatalf("the child process said %q", line)
		}
		theirs[p] = true
	}
	if len(theirs) != 1000 {
		t.Fatalf("the child picked %d ports, want 1000", len(theirs))
	}
	var both []string
	for range 1000 {
		p, err := PickNow("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if theirs[p] {
			both = append(both, strconv.Itoa(p))
		}
	}
	if len(both) > 0 {
		t.Errorf("%d ports picked by both processes: %s", len(both), strings.Join(both, " "))
	}
}
