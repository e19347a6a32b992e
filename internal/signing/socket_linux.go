package signing

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pcflow/pcflow/workflows"
)

// maxRequest bounds a signing request (an answer's text included).
const maxRequest = 1 << 20

// Serve signs, on the state folder's socket, the decisions of the local
// users who cannot read the key, as the uid the kernel reports for each
// connection's peer (SO_PEERCRED): a sender names nobody itself. Only one
// process of a state folder serves at a time; the others try again every
// few seconds, so one takes over when it ends. Stop ends it.
func Serve(k Key, state string, log *slog.Logger) (stop func()) {
	done := make(chan struct{})
	var mu sync.Mutex
	var l net.Listener
	go func() {
		for {
			ln, err := net.Listen("unix", socketName(state))
			if err == nil {
				mu.Lock()
				select {
				case <-done:
					mu.Unlock()
					ln.Close()
					return
				default:
				}
				l = ln
				mu.Unlock()
				serve(ln, k, log)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Second):
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			close(done)
			if l != nil {
				l.Close()
			}
			mu.Unlock()
		})
	}
}

// serve answers connections until ln is closed.
func serve(ln net.Listener, k Key, log *slog.Logger) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && log != nil {
				log.Warn("approval signing socket", "error", err)
			}
			return
		}
		go func() {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			r := answer(c.(*net.UnixConn), k)
			_ = json.NewEncoder(c).Encode(r)
			if r.Error != "" && log != nil {
				log.Info("approval signing refused", "error", r.Error)
			}
		}()
	}
}

func answer(c *net.UnixConn, k Key) reply {
	uid, err := peerUID(c)
	if err != nil {
		return reply{Error: "who is asking: " + err.Error()}
	}
	var cl workflows.Claim
	line, err := bufio.NewReader(io.LimitReader(c, maxRequest)).ReadBytes('\n')
	if err != nil {
		return reply{Error: "read the request: " + err.Error()}
	}
	if err := json.Unmarshal(line, &cl); err != nil {
		return reply{Error: "the request is not a claim: " + err.Error()}
	}
	cl.By, cl.UID = Person(uid)
	cl.At = time.Now().Unix()
	return reply{Claim: &cl, Sig: k.Sign(cl)}
}

func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, serr
	}
	return int(cred.Uid), nil
}

// Ask has the operator's process serving the state folder's socket sign
// c as this process's user; it sets c's sender and time as signed.
func Ask(state string, c *workflows.Claim) (string, error) {
	conn, err := net.DialTimeout("unix", socketName(state), 5*time.Second)
	if err != nil {
		return "", fmt.Errorf("no pcflow process of that user signs for this state folder (%s) right now: a run's local worker (pcflow run, resume or eval) or pcflow worker on it does; or ask that user to approve", state)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	if err := json.NewEncoder(conn).Encode(c); err != nil {
		return "", fmt.Errorf("ask the signing process: %w", err)
	}
	var r reply
	if err := json.NewDecoder(io.LimitReader(conn, maxRequest)).Decode(&r); err != nil {
		return "", fmt.Errorf("the signing process's answer: %w", err)
	}
	if r.Error != "" || r.Claim == nil {
		return "", fmt.Errorf("the signing process refused: %s", r.Error)
	}
	// Only who and when come back: what is decided stays the asker's.
	c.By, c.UID, c.At = r.Claim.By, r.Claim.UID, r.Claim.At
	return r.Sig, nil
}
