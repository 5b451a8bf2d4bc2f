//go:build linux || darwin

package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// termWidth asks the terminal f for its width in columns (TIOCGWINSZ); 0
// if it does not answer.
func termWidth(f *os.File) int {
	var ws struct{ rows, cols, x, y uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0
	}
	return int(ws.cols)
}
