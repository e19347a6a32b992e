package office_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/activities/office/officetest"
)

// The tests read files that LibreOffice itself saved (see officetest):
// right/ holds the expected end state, wrong/ one that differs in every
// property checked.

var fixtures string

// conv converts each fixture once for all the tests: LibreOffice takes
// seconds to start, and the tests read the same files many ways.
var conv = &office.Cache{Conv: office.Soffice{}}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "office-test-")
	if err != nil {
		panic(err)
	}
	fixtures = dir
	// Both sets in one go: one LibreOffice start per format.
	if err := officetest.MakeSets(context.Background(), officetest.Set{Dir: filepath.Join(dir, "right")},
		officetest.Set{Dir: filepath.Join(dir, "wrong"), Wrong: true}); err != nil {
		fmt.Fprintln(os.Stderr, "making LibreOffice fixtures:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	conv.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

func right(name string) string { return filepath.Join(fixtures, "right", name) }
func wrong(name string) string { return filepath.Join(fixtures, "wrong", name) }
