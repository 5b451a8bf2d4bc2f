package groth16

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// errFileShrank is a read of a mapped key file past its current end: the
// file was truncated after it was mapped, and the kernel raised SIGBUS.
var errFileShrank = errors.New("the file shrank while mapped (replace parameter files by rename, never in place)")

// readMapped runs f, which reads data, a mapped file, and turns a fault on
// data (the file shrank underneath: SIGBUS, which would kill the process)
// into an error wrapping errFileShrank. debug.SetPanicOnFault covers only
// the calling goroutine, so every goroutine that reads mapped bytes reads
// them inside readMapped. Faults at other addresses are bugs and still panic.
func readMapped(data []byte, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if re, ok := r.(runtime.Error); ok {
			if fe, ok := re.(interface{ Addr() uintptr }); ok && inSlice(data, fe.Addr()) {
				err = fmt.Errorf("%w (fault at %#x)", errFileShrank, fe.Addr())
				return
			}
		}
		panic(r)
	}()
	return f()
}

// inSlice reports whether addr lies in b's bytes.
func inSlice(b []byte, addr uintptr) bool {
	if len(b) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return addr >= lo && addr-lo < uintptr(len(b))
}
