package activities

import (
	"os"
	"strconv"
	"time"
)

// workerSession names this process's run of a device's worker, set once
// when the process starts. A worker started again — its desktop brought
// back after its X server died, its sandbox started afresh, its eval
// killed and resumed — has another one, so a workflow that saw one session
// at setup and sees another later knows the desktop under its task may
// have been replaced (Setup and Observe report it).
var workerSession = strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid())
