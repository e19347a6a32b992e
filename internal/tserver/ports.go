package tserver

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/pcflow/pcflow/internal/freeport"
	tlog "go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// startLogger turns the server's Fatal while it starts into a panic Start
// recovers as an error. Temporal calls Fatal when a service cannot listen;
// a no-op logger would carry on with no listener and crash the process later,
// and zap's would exit it.
type startLogger struct {
	tlog.Logger
	starting atomic.Bool
}

type fatalError string

func (l *startLogger) Fatal(msg string, tags ...tag.Tag) {
	l.Logger.Error(msg, tags...)
	if !l.starting.Load() {
		return
	}
	var b strings.Builder
	b.WriteString(msg)
	for _, t := range tags {
		fmt.Fprintf(&b, "; %s: %v", t.Key(), t.Value())
	}
	panic(fatalError(b.String()))
}

// start runs f with Fatal turned into an error.
func (l *startLogger) start(f func() error) (err error) {
	l.starting.Store(true)
	defer l.starting.Store(false)
	defer func() {
		if r := recover(); r != nil {
			fe, ok := r.(fatalError)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("temporal server: %s", string(fe))
		}
	}()
	return f()
}

// pickPort picks each internal service's port; a test replaces it.
var pickPort = freeport.PickNow
