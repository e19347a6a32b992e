package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// approversEnv lists a run's approvers when --approvers is not given.
const approversEnv = "PCFLOW_APPROVERS"

// approverList returns the people the operator lets approve, reject and
// answer for the runs it starts: --approvers, else $PCFLOW_APPROVERS,
// else the state folder's approvers file (a NAME or NAME=UID a line, #
// starts a comment), and where the list came from. Empty: anyone who
// reaches the server. The list goes into the run's input; the run's
// workflows refuse anyone else, named by the user of their process's uid.
func approverList(flagValue string, getenv func(string) string, state string) ([]string, string, error) {
	var entries []string
	src := ""
	switch {
	case flagValue != "":
		entries, src = strings.Split(flagValue, ","), "--approvers"
	case getenv(approversEnv) != "":
		entries, src = strings.Split(getenv(approversEnv), ","), "$"+approversEnv
	default:
		path := filepath.Join(state, "approvers")
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("approvers: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line, _, _ := strings.Cut(sc.Text(), "#")
			if line = strings.TrimSpace(line); line != "" {
				entries = append(entries, line)
			}
		}
		src = path
	}
	var out []string
	for _, a := range entries {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		name, uid, withUID := strings.Cut(a, "=")
		if name == "" || strings.ContainsAny(name, " \t@=") || withUID && (uid == "" || strings.Trim(uid, "0123456789") != "") {
			return nil, "", fmt.Errorf("%s: approver %q: write a user NAME or NAME=UID (the user's numeric id), such as fay or fay=1001", src, a)
		}
		out = append(out, a)
	}
	return out, src, nil
}
