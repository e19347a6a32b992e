// Package signing proves who approves, rejects and answers (issue 37): a
// person's decision reaches a run as a Temporal update whose argument
// names its sender, and anyone who reaches the server can send one naming
// anybody. So a decision carries an HMAC-SHA256 signature over its
// workflows.Claim (which update, to which subtask workflow, which request,
// the verdict and its text, the sender's USER@HOST and uid, the time) by
// a key only the operator's pcflow processes read: STATE/approval.key,
// mode 0600, made by the first worker that runs workflows on the state
// folder. The worker that runs a run's workflows verifies it in its update
// validator (worker.DecisionInterceptor) and refuses the update otherwise;
// a refused update never reaches history.
//
// The signer, not the sender, sets who decides: a process that reads the
// key signs as the user of its own uid (Me), and one that cannot (another
// user on the machine) asks a pcflow process of the operator on a local
// socket, which signs as the uid the kernel reports for the socket's peer
// (Serve, Ask).
package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pcflow/pcflow/internal/keyfile"
	"github.com/pcflow/pcflow/workflows"
)

// KeyName is the key's file in the state folder.
const KeyName = "approval.key"

// keySize is the key's length in bytes.
const keySize = 32

// MaxAge bounds how old (or how far ahead, between machines' clocks) a
// signature may be when a worker checks it.
const MaxAge = 10 * time.Minute

// Key signs and verifies decisions.
type Key []byte

// KeyPath is the key file of the state folder state.
func KeyPath(state string) string { return filepath.Join(state, KeyName) }

// LoadOrCreate returns the state folder's key, making it (mode 0600) when
// there is none: what a process that runs workflows calls at its start.
func LoadOrCreate(state string) (Key, error) {
	k, _, err := keyfile.Load(KeyPath(state), keySize)
	if err != nil {
		return nil, fmt.Errorf("the approvals' key: %w", err)
	}
	return k, nil
}

// Read returns the state folder's key without making one.
func Read(state string) (Key, error) {
	b, err := os.ReadFile(KeyPath(state))
	if err != nil {
		return nil, err
	}
	if len(b) != keySize {
		return nil, fmt.Errorf("the key %s is damaged (%d bytes, not %d): remove it and restart the workers that run workflows", KeyPath(state), len(b), keySize)
	}
	return b, nil
}

// Sign returns c's signature.
func (k Key) Sign(c workflows.Claim) string {
	m := hmac.New(sha256.New, k)
	m.Write(c.Bytes())
	return hex.EncodeToString(m.Sum(nil))
}

// Verify refuses c unless sig is its signature by k, made within MaxAge of
// now.
func (k Key) Verify(c workflows.Claim, sig string, now time.Time) error {
	how := "`pcflow approve`, `pcflow reject`, `pcflow answer` or the live view"
	if sig == "" {
		return fmt.Errorf("the %s update is not signed, so nothing proves who sends it (it names %s): send it with %s, which sign it as the user who runs them", c.Update, who(c), how)
	}
	got, err := hex.DecodeString(sig)
	m := hmac.New(sha256.New, k)
	m.Write(c.Bytes())
	if err != nil || !hmac.Equal(got, m.Sum(nil)) {
		return fmt.Errorf("the %s update's signature does not match it (it names %s): it was altered, made for another decision, or signed with another state folder's %s; send it with %s on a machine whose state folder holds the key of the worker that runs this workflow", c.Update, who(c), KeyName, how)
	}
	at := time.Unix(c.At, 0)
	if d := now.Sub(at); d > MaxAge || d < -MaxAge {
		return fmt.Errorf("the %s update was signed at %s, more than %s from this worker's clock (%s): send it again (check the clocks when they differ)", c.Update, at.UTC().Format(time.RFC3339), MaxAge, now.UTC().Format(time.RFC3339))
	}
	return nil
}

func who(c workflows.Claim) string {
	s := c.By
	if s == "" {
		s = "nobody"
	}
	if c.UID != "" {
		s += " (uid " + c.UID + ")"
	}
	return s
}

// Person names the user of uid as a run's history does: USER@HOST, and the
// uid ("uid N" as the name when the uid has none).
func Person(uid int) (by, id string) {
	id = strconv.Itoa(uid)
	name := "uid " + id
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host, id
}

// Signer signs decisions for the person running this process, through the
// state folder's key when this process may read it, else through the
// operator's pcflow process (Ask).
type Signer struct {
	State string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Sign sets c's sender (this process's user) and time and returns its
// signature.
func (s Signer) Sign(c *workflows.Claim) (string, error) {
	k, err := Read(s.State)
	switch {
	case err == nil:
		c.By, c.UID = Person(os.Getuid())
		c.At = s.now().Unix()
		return k.Sign(*c), nil
	case errors.Is(err, os.ErrPermission):
		// The operator's key: its process signs as this process's uid.
		sig, aerr := Ask(s.State, c)
		if aerr != nil {
			return "", fmt.Errorf("cannot sign the decision: %s belongs to the user who runs the workers, and %v", KeyPath(s.State), aerr)
		}
		return sig, nil
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("cannot sign the decision: no key %s: a decision is signed with the key of the worker that runs the run's workflows, which makes it in its state folder; give this command that --state (or, with the worker on another machine, copy its %s into this state folder, mode 0600)", KeyPath(s.State), KeyName)
	default:
		return "", fmt.Errorf("cannot sign the decision: %w", err)
	}
}

func (s Signer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// As signs decisions under a fixed name with the key, for a sender the
// key's holder vouches for itself: the live view page (whoever holds its
// token), recorded as "view page".
type As struct {
	Key Key
	By  string
}

// Sign sets c's sender to a.By and returns its signature.
func (a As) Sign(c *workflows.Claim) (string, error) {
	c.By, c.UID, c.At = a.By, "", time.Now().Unix()
	return a.Key.Sign(*c), nil
}
