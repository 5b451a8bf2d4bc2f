// Package testparams gives the test binaries of one `go test` run one
// TEST-ONLY 2 KiB PoRep setup to share (a 1.1 GB file that costs about two
// CPU-minutes to make), and removes it when the run ends, also where one
// of them was killed by go test's -timeout.
//
// Usage, in a package's TestMain and its tests' setup helper:
//
//	run := testparams.Join()
//	code := m.Run()
//	run.Leave()
//	os.Exit(code)
//
//	dir, err := run.Seal2KiB(ctx) // Config.TestParamsDir, the setup in it
//
// Layout. go test starts each package's test binary as a child of the go
// command (two at a time on 2 cores), so the binaries of one run share a
// parent: under os.TempDir() each run has one directory named after it,
//
//	gpuc2-test-<parent pid>/
//	    lock         a shared flock held by every binary in the run, and its keeper
//	    setup.lock   an exclusive flock held while the setup is made
//	    keeper.lock  an exclusive flock held by the run's keeper
//	    gpuc2/test-params/TEST-ONLY-StackedDrg2KiBV1_1.params, and its digest sidecar
//	    p<pid>/      one binary's TestParamsDir: hard links to the shared setup;
//	                 what else it makes there (update, NI, 8 MiB setups) stays its own
//
// Cleanup by lock, not by process id: the kernel drops a process's flocks
// however it ends (a timeout's panic, SIGKILL), so an exclusive lock on
// lock, once granted, shows that nothing live is in the run: whoever gets
// it removes the run's directory. A binary tries when it leaves; on
// joining it tries every run's directory, which removes what was left by
// a run whose last binary was killed. A directory is renamed
// before it is removed, so a binary joining meanwhile makes a fresh one.
//
// The keeper. Packages run one after another as well as side by side, so
// that the setup outlives the binary that made it, the first binary to
// join a run whose parent is the go command (on Linux) starts a keeper:
// the same executable, detached in a session of its own, that holds lock
// shared until the go command exits (polling each second), then removes
// the directory unless a binary is still in it (that one's Leave does).
// So a run's directory goes when go test ends, however its binaries
// ended. Without a keeper (another parent: a script or a shell running
// test binaries) it goes with the last binary that is in it.
//
// Join also points TMPDIR into the binary's own directory, so that what
// the tests write under t.TempDir goes with it, also after a timeout.
//
// Where flock is missing (not Linux or a BSD), or the run's directory
// cannot be used, each binary has a directory of its own, removed when it
// leaves, and makes its own setup.
//
// Seal2KiB is safe for concurrent use; Join and Leave are for TestMain.
package testparams

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
)

// spt is the proof type whose setup is shared: every 2 KiB PoRep type
// uses its file (gpuc2.TestParamsPath).
const spt = abi.RegisteredSealProof_StackedDrg2KiBV1_1

// prefix starts the name of each run's directory under os.TempDir().
const prefix = "gpuc2-test-"

// runName matches a run's directory (group 1: the parent's pid), and one
// renamed for removal (group 2).
var runName = regexp.MustCompile(`^` + prefix + `([0-9]+)(\.gone-[0-9]+)?$`)

// envKeeper makes Join run as a run's keeper: its value is the run's
// directory and the go command's pid, a newline between.
const envKeeper = "GPUC2_TESTPARAMS_KEEPER"

// stray is how old a run's directory without a lock file must be before a
// sweep removes it: a binary creates the lock file just after the
// directory, so a younger one may be in the making.
const stray = 10 * time.Minute

// Run is this binary's place in its run.
type Run struct {
	root   string   // the run's directory; "" when the binary has its own
	parent int      // the pid the run is named after
	own    string   // this binary's directory
	lock   *os.File // root's lock, held shared until Leave

	once   sync.Once
	sealed error
}

// Join enters the run of this binary's parent (see the package doc),
// first removing the directories of earlier runs that no live binary
// holds. It does not fail: where the run's directory cannot be used, the
// binary gets a directory of its own (and the reason is printed).
//
// In a keeper (started by the first Join of a run) Join keeps the run and
// exits.
func Join() *Run {
	if v, ok := os.LookupEnv(envKeeper); ok {
		root, parent, _ := strings.Cut(v, "\n")
		if pid, err := strconv.Atoi(parent); err == nil {
			keep(root, pid)
		}
		os.Exit(0)
	}
	r, err := join(os.TempDir(), os.Getppid(), os.Getpid())
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "testparams: no shared TEST-ONLY setup (%v); this binary makes its own\n", err)
		own, err := os.MkdirTemp("", "gpuc2-test-own-")
		if err != nil {
			panic(err) // no temporary directory at all: nothing can run
		}
		r = &Run{own: own}
	case parentIsGo(r.parent):
		r.startKeeper()
	}
	// t.TempDir and os.MkdirTemp("") go under the binary's own directory,
	// where a timeout's cleanup reaches them too (the testing package's
	// own removal of a t.TempDir does not run after a timeout's panic).
	tmp := filepath.Join(r.own, "tmp")
	if err := os.Mkdir(tmp, 0o700); err == nil {
		os.Setenv("TMPDIR", tmp)
	}
	return r
}

// join enters, as binary pid, the directory of run parent under tmp.
func join(tmp string, parent, pid int) (*Run, error) {
	root := filepath.Join(tmp, fmt.Sprintf("%s%d", prefix, parent))
	sweep(tmp) // this run's too if nothing holds it: left by an earlier parent with this pid
	lock, err := enter(root)
	if err != nil {
		return nil, err
	}
	own := filepath.Join(root, fmt.Sprintf("p%d", pid))
	_ = os.RemoveAll(own) // a dead binary's that had this pid
	if err := os.Mkdir(own, 0o700); err != nil {
		lock.Close()
		return nil, err
	}
	return &Run{root: root, parent: parent, own: own, lock: lock}, nil
}

// enter creates root if needed and holds its lock shared, retrying while
// a leaving binary removes a directory of that name.
func enter(root string) (*os.File, error) {
	for range 100 {
		if err := os.MkdirAll(root, 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(root, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if errors.Is(err, fs.ErrNotExist) {
			continue // renamed away between the two calls
		}
		if err != nil {
			return nil, err
		}
		if err := lockShared(f); err != nil {
			f.Close()
			return nil, err
		}
		if current(f) {
			return f, nil
		}
		f.Close() // the directory was removed while we waited
	}
	return nil, fmt.Errorf("%s: removed again and again while joining", root)
}

// current reports whether f, a run's lock, is still the file at its path.
func current(f *os.File) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(f.Name())
	return err == nil && os.SameFile(held, now)
}

// Dir is this binary's directory, for Config.TestParamsDir (or as
// XDG_CACHE_HOME, where gpuc2.TestParamsPath puts what programs make).
// It holds the shared setup only once Seal2KiB has returned.
func (r *Run) Dir() string { return r.own }

// Seal2KiB returns Dir with the 2 KiB PoRep TEST-ONLY setup in it: the
// run's, made by the first binary that asks (the others wait for it), or,
// without a run, this binary's own.
func (r *Run) Seal2KiB(ctx context.Context) (string, error) {
	r.once.Do(func() { r.sealed = r.seal(ctx) })
	return r.own, r.sealed
}

func (r *Run) seal(ctx context.Context) error {
	if r.root == "" {
		return makeSetup(ctx, r.own)
	}
	setup, err := os.OpenFile(filepath.Join(r.root, "setup.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer setup.Close() // unlocks
	if err := lockExclusive(setup); err != nil {
		return err
	}
	if err := makeSetup(ctx, r.root); err != nil {
		return err
	}
	from, to := gpuc2.TestParamsPath(r.root, spt), gpuc2.TestParamsPath(r.own, spt)
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	for _, p := range [][2]string{{from, to}, {groth16.DigestSidecarPath(from), groth16.DigestSidecarPath(to)}} {
		if err := link(p[0], p[1]); err != nil {
			return fmt.Errorf("testparams: %w", err)
		}
	}
	return nil
}

// link makes to a hard link to from (it keeps the file for as long as the
// binary's directory holds it), else a symbolic one (gpuc2.TestParams
// follows it); one already there is kept.
func link(from, to string) error {
	err := os.Link(from, to)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	if serr := os.Symlink(from, to); serr != nil && !errors.Is(serr, fs.ErrExist) {
		return errors.Join(err, serr)
	}
	return nil
}

// parentIsGo reports whether process pid is the go command (Linux: other
// systems have no /proc to tell).
func parentIsGo(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return err == nil && strings.TrimSpace(string(b)) == "go"
}

// startKeeper starts a keeper for the run unless it has one. Two binaries
// may start one each at once: the second to lock keeper.lock exits. A
// keeper that cannot start leaves the directory to the last binary.
func (r *Run) startKeeper() {
	k, err := os.OpenFile(filepath.Join(r.root, "keeper.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	kept := !tryLockExclusive(k)
	k.Close()
	if kept {
		return
	}
	if err := startDetached(fmt.Sprintf("%s=%s\n%d", envKeeper, r.root, r.parent)); err != nil {
		fmt.Fprintf(os.Stderr, "testparams: no keeper (%v): the run's directory goes with its last binary\n", err)
	}
}

// keep is a keeper's life: in run root while process parent lives, then
// the directory's removal unless a binary is still in it.
func keep(root string, parent int) {
	k, err := os.OpenFile(filepath.Join(root, "keeper.lock"), os.O_RDWR, 0)
	if err != nil || !tryLockExclusive(k) {
		return // the run has ended, or has a keeper
	}
	defer k.Close()
	lock, err := os.OpenFile(filepath.Join(root, "lock"), os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer lock.Close()
	if lockShared(lock) != nil || !current(lock) {
		return
	}
	for alive(parent) {
		time.Sleep(time.Second)
	}
	if tryLockExclusive(lock) {
		remove(root)
	}
}

// makeSetup makes the 2 KiB setup under dir unless it is there with its
// digest sidecar; a file without one (its maker killed between the two)
// is made again.
func makeSetup(ctx context.Context, dir string) error {
	path := gpuc2.TestParamsPath(dir, spt)
	_, err := os.Stat(path)
	_, serr := os.Stat(groth16.DigestSidecarPath(path))
	if err == nil && serr == nil {
		return nil
	}
	if err == nil {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return create(ctx, dir)
}

// create makes the setup under dir (a variable for tests, which fake it).
var create = func(ctx context.Context, dir string) error {
	pk, _, _, err := gpuc2.TestParams(ctx, dir, spt)
	if err != nil {
		return err
	}
	return pk.Close()
}

// Leave removes this binary's directory, and the run's if nothing else
// live is in it (no other binary, no keeper). TestMain calls it after
// m.Run; what a binary that dies first leaves goes with the run's
// directory: removed by its keeper, its last binary or the next Join's
// sweep.
func (r *Run) Leave() {
	_ = os.RemoveAll(r.own)
	if r.root == "" {
		return
	}
	if tryLockExclusive(r.lock) {
		remove(r.root)
	}
	r.lock.Close()
}

// remove renames a run's directory out of its name, so that no binary
// joins it, then removes it. Its caller holds its lock exclusively.
func remove(root string) {
	gone := fmt.Sprintf("%s.gone-%d", root, os.Getpid())
	if os.Rename(root, gone) != nil {
		return
	}
	_ = os.RemoveAll(gone)
}

// sweep removes the run directories under tmp that nothing live holds:
// their lock is free, or they have none and are older than stray, or they
// were renamed for removal by a binary that died.
func sweep(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		m := runName.FindStringSubmatch(e.Name())
		dir := filepath.Join(tmp, e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		if m[2] != "" {
			_ = os.RemoveAll(dir)
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > stray {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		if err != nil {
			continue // another user's, or unreadable: not ours to judge
		}
		if tryLockExclusive(f) && current(f) {
			remove(dir)
		}
		f.Close()
	}
}
