package host

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/liveview"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/worker"
)

// ViewOptions say which device's live view StartView serves, and where.
type ViewOptions struct {
	Addr    string // HOST:PORT (port 0: a free one)
	Device  string
	Display string
	State   string // the state folder: the view's URL file, the signing key
	Client  client.Client
	Track   *worker.Tracker // the subtask the device ran last, for the page's buttons
	Logger  *slog.Logger
	Warn    io.Writer // where a view that cannot start, or listens on every interface, is told
}

// StartView serves o.Device's live view on o.Display; a view that cannot
// start is a warning on o.Warn, not an error: the run does not need it.
// It returns nil then.
func StartView(ctx context.Context, o ViewOptions) *liveview.Server {
	if w := exposedView(o.Addr, o.Device); w != "" {
		fmt.Fprintln(o.Warn, w)
	}
	// The page's approvals and answers are signed as the view page's.
	var sign control.Signer
	if key, err := signing.LoadOrCreate(o.State); err == nil {
		sign = signing.As{Key: key, By: "view page"}
	} else {
		fmt.Fprintf(o.Warn, "pcflow: the live view of device %s cannot approve or answer: %v\n", o.Device, err)
	}
	s, err := liveview.Start(ctx, liveview.Options{Device: o.Device, Display: o.Display, Addr: o.Addr, StateDir: o.State,
		Client: o.Client, Current: o.Track.Last, Sign: sign, Logger: o.Logger})
	if err != nil {
		fmt.Fprintf(o.Warn, "pcflow: no live view of device %s: %v\n", o.Device, err)
		return nil
	}
	return s
}

// exposedView is the warning for a live view served on every interface
// of the machine (--view-addr 0.0.0.0:PORT, [::]:PORT, :PORT), "" for one
// on a single address.
func exposedView(addr, device string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return ""
	}
	return fmt.Sprintf("warning: the live view of device %s listens on every interface of this machine (--view-addr %s): anyone who reaches it with the URL's token can watch the device and take it over, over plain HTTP. "+
		"Keep the default 127.0.0.1 and reach it through ssh -L, or serve it on one address behind a TLS proxy", device, addr)
}
