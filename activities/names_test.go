package activities

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestActivityNamesArePinned fails when a method is renamed: workflows call
// activities by method, Temporal stores the name, and running histories
// must keep finding it.
func TestActivityNamesArePinned(t *testing.T) {
	var a *Activities
	for want, fn := range map[string]any{
		DecideName: a.Decide, ActName: a.Act, ReflectName: a.Reflect, ProgressName: a.Progress,
		ManageName: a.Manage, SetupName: a.Setup, CheckName: a.Check,
		ResetName: a.Reset, RequiresName: a.Requires, ZoomName: a.Zoom, ObserveName: a.Observe,
		RecordName: a.Record, VideoName: a.Video, AnswerAsUserName: a.AnswerAsUser, ReplayStepName: a.ReplayStep,
	} {
		full := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
		got := strings.TrimSuffix(full[strings.LastIndex(full, ".")+1:], "-fm")
		if got != want {
			t.Errorf("activity method %s is registered as %q: rename the constant only with workflow.GetVersion", full, want)
		}
	}
}
