// Command flakesum reads `go test -json` output on standard input and
// lists every test that failed at least once, with its messages
// (scripts/flake.sh). It exits 1 when one did, 0 when none did.
package main

import (
	"fmt"
	"os"

	"github.com/pcflow/pcflow/internal/flakes"
)

func main() {
	s, err := flakes.Read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "flakesum:", err)
		os.Exit(2)
	}
	flakes.Write(os.Stdout, s)
	if len(s.Flaky()) > 0 || len(s.Packages) > 0 {
		os.Exit(1)
	}
}
