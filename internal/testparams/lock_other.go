//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package testparams

import (
	"errors"
	"os"
)

// Without flock, no run's directory is shared (Join gives each binary its
// own) and none is swept.
var errNoFlock = errors.New("no flock on this system")

func lockShared(*os.File) error      { return errNoFlock }
func lockExclusive(*os.File) error   { return errNoFlock }
func tryLockExclusive(*os.File) bool { return false }

func alive(int) bool { return false }

func startDetached(string) error { return errNoFlock }
