//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package testparams

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

func lockShared(f *os.File) error    { return flock(f, syscall.LOCK_SH) }
func lockExclusive(f *os.File) error { return flock(f, syscall.LOCK_EX) }

// tryLockExclusive takes f's lock exclusively if no other open file holds
// it. It may drop a shared lock that f held (flock converts by dropping).
func tryLockExclusive(f *os.File) bool { return flock(f, syscall.LOCK_EX|syscall.LOCK_NB) == nil }

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// startDetached starts this executable with env added, in a session of
// its own (a terminal's Ctrl-C and go test's kill of a timed-out binary
// do not reach it), its standard files /dev/null (go test waits for no
// output from it).
func startDetached(env string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaped here if it exits before this binary
	return nil
}
