package screen

import "sort"

// Kinds returns every action kind a Decision agent may choose, sorted: the
// names a policy rule's kinds may list.
func Kinds() []string {
	k := []string{
		ActOpenApp, ActClick, ActDoubleClick, ActRightClick, ActType, ActSelect,
		ActDrag, ActScroll, ActHotkey, ActWait, ActSwitchWindow, ActCopy,
		ActPaste, ActDone, ActFail, ActAskHuman,
		ActMiddleClick, ActTripleClick, ActMouseMove, ActMouseDown, ActMouseUp,
		ActHoldKey, ActZoom,
	}
	sort.Strings(k)
	return k
}
