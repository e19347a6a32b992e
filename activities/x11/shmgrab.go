package x11

import (
	"errors"
	"fmt"
	"image"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgbutil"
	"golang.org/x/sys/unix"
)

// errOtherNamespace is why the shared-memory capture is off when the X
// server attached a segment that is not this process's: the server runs
// in another IPC namespace (the eval overlay sandbox has one of its own),
// where the segment's id names another segment or none.
var errOtherNamespace = errors.New("the X server runs in another IPC namespace: it attached another segment under this one's id")

// shmScreen reads the screen through the X shared-memory extension
// (MIT-SHM): the X server copies the pixels into a System V segment that
// this process has attached, instead of sending the 4 MB of a 1280×800
// screen through the X socket. There is one segment per X connection, kept
// while the screen's size is unchanged, marked for removal as soon as it
// is attached (the kernel frees it when this process and the X server have
// detached, however this process ends) and detached by close. Where the
// server cannot use the segment (no extension, another host, another IPC
// namespace) the first capture finds out, and every capture on that
// connection is grab's GetImage.
type shmScreen struct {
	mu   sync.Mutex
	conn *xgb.Conn // the connection that off and the segment belong to
	seg  shm.Seg
	mem  []byte // this process's attachment; nil when none
	off  error  // why captures on conn use GetImage; nil while SHM works
}

// grab captures the screen through the segment, or with grab where shared
// memory is unavailable.
func (s *shmScreen) grab(xu *xgbutil.XUtil) (*image.RGBA, error) {
	w, h, err := grabSize(xu)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != xu.Conn() {
		s.release()
		s.conn, s.off = xu.Conn(), nil
	}
	if s.off == nil && len(s.mem) != w*h*4 {
		s.release()
		s.off = s.attach(w * h * 4)
	}
	if s.off == nil {
		img, err := s.get(xu, w, h)
		if err == nil {
			return img, nil
		}
		s.off = err
		s.release()
	}
	return grab(xu)
}

// attach creates a segment of size bytes and has the X server attach it.
func (s *shmScreen) attach(size int) error {
	if err := shm.Init(s.conn); err != nil {
		return fmt.Errorf("MIT-SHM: %w", err)
	}
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return fmt.Errorf("shmget: %w", err)
	}
	mem, err := unix.SysvShmAttach(id, 0, 0)
	// Linux lets the X server attach a segment marked for removal.
	unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	if err != nil {
		return fmt.Errorf("shmat: %w", err)
	}
	seg, err := shm.NewSegId(s.conn)
	if err == nil {
		err = shm.AttachChecked(s.conn, seg, uint32(id), false).Check()
	}
	if err != nil {
		unix.SysvShmDetach(mem)
		return fmt.Errorf("MIT-SHM attach: %w", err)
	}
	// The server attached it before answering: the segment then counts
	// two attachments, unless the server attached another one.
	var st unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &st); err != nil || st.Nattch < 2 {
		shm.Detach(s.conn, seg)
		unix.SysvShmDetach(mem)
		return errOtherNamespace
	}
	s.seg, s.mem = seg, mem
	return nil
}

// get reads the screen into the segment and returns a copy in RGBA.
func (s *shmScreen) get(xu *xgbutil.XUtil, w, h int) (*image.RGBA, error) {
	rep, err := shm.GetImage(s.conn, xproto.Drawable(xu.RootWin()), 0, 0, uint16(w), uint16(h), 0xffffffff, xproto.ImageFormatZPixmap, s.seg, 0).Reply()
	if err != nil {
		return nil, fmt.Errorf("MIT-SHM GetImage: %w", err)
	}
	if int(rep.Size) < w*h*4 {
		return nil, fmt.Errorf("MIT-SHM GetImage: %d bytes for a %dx%d screen", rep.Size, w, h)
	}
	return toRGBA(s.mem, w, h), nil
}

// release detaches the segment, on both sides.
func (s *shmScreen) release() {
	if s.mem == nil {
		return
	}
	shm.Detach(s.conn, s.seg) // no reply: harmless on a closed connection
	unix.SysvShmDetach(s.mem)
	s.mem = nil
}

// close frees the segment; the next capture starts afresh.
func (s *shmScreen) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release()
	s.conn, s.off = nil, nil
}

// usesSHM reports whether the last capture on the connection read shared
// memory, and why not.
func (s *shmScreen) usesSHM() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.off == nil && s.mem != nil, s.off
}
