package signing

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/pcflow/pcflow/workflows"
)

// socketName is the abstract Unix socket on which the operator's pcflow
// processes of the state folder state sign for other local users.
func socketName(state string) string {
	if abs, err := filepath.Abs(state); err == nil {
		state = abs
	}
	h := sha256.Sum256([]byte(state))
	return "@pcflow-sign-" + hex.EncodeToString(h[:16])
}

// reply is the socket's answer to a claim, one JSON line each way.
type reply struct {
	Claim *workflows.Claim `json:"claim,omitempty"`
	Sig   string           `json:"sig,omitempty"`
	Error string           `json:"error,omitempty"`
}
