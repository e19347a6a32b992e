package host

import (
	"errors"
	"fmt"
	"os"

	"github.com/pcflow/pcflow/internal/procfs"
	"github.com/pcflow/pcflow/workflows"
)

// LeaseHolder names this process as the holder of device's lease, a
// device of platform ("" unknown) that is where ("display :3", "" not
// said).
func LeaseHolder(device, platform, where string) workflows.Holder {
	host, _ := os.Hostname()
	h := workflows.Holder{Host: host, PID: os.Getpid(), PIDNS: pidNS(), Owner: os.Getenv(LeaseOwnerEnv), Platform: platform}
	h.Who = fmt.Sprintf("the pcflow process %d on %s", h.PID, host)
	if where != "" {
		h.Who += ", " + where
	}
	if h.Owner != "" {
		h.Who += ", for " + h.Owner
	}
	return h
}

// pidNS identifies this process's pid namespace: a pid means the same
// process only within one.
func pidNS() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}

// LeaseHolderGone reports whether h's process has ended: it ran on this
// host, in this pid namespace, and its pid is gone or a zombie. Anything
// else (another host, another namespace, a live pid, even one reused) is
// not known to be gone: its lease then lapses by itself.
func LeaseHolderGone(h workflows.Holder) bool {
	host, _ := os.Hostname()
	if h.Host != host || h.PID <= 0 || h.PIDNS == "" || h.PIDNS != pidNS() || h.PID == os.Getpid() {
		return false
	}
	st, err := procfs.ReadStat(h.PID)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	return err == nil && st.State == 'Z'
}
