package testparams

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
)

// mkRun makes a run's directory named name under tmp, with a lock file
// unless lock is false, and a file standing for a setup.
func mkRun(t *testing.T, tmp, name string, lock bool) string {
	t.Helper()
	dir := filepath.Join(tmp, name)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "p1"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "setup.params"), []byte("x"), 0o600))
	if lock {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "lock"), nil, 0o600))
	}
	return dir
}

// The sweep removes the runs no live binary holds (a free lock, no lock
// and old, renamed for removal) and keeps the rest: a held lock (another
// open file stands for a live binary), no lock but young, and what is not
// a run's.
func TestSweep(t *testing.T) {
	tmp := t.TempDir()
	free := mkRun(t, tmp, "gpuc2-test-101", true)
	held := mkRun(t, tmp, "gpuc2-test-102", true)
	f, err := os.OpenFile(filepath.Join(held, "lock"), os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, lockShared(f))
	oldNoLock := mkRun(t, tmp, "gpuc2-test-103", false)
	old := time.Now().Add(-2 * stray)
	require.NoError(t, os.Chtimes(oldNoLock, old, old))
	youngNoLock := mkRun(t, tmp, "gpuc2-test-104", false)
	renamed := mkRun(t, tmp, "gpuc2-test-105.gone-7", false)
	others := []string{mkRun(t, tmp, "gpuc2-test-params-107", true), mkRun(t, tmp, "gpuc2d-params108", true),
		mkRun(t, tmp, "gpuc2-test-109x", true)}

	sweep(tmp)
	for _, gone := range []string{free, oldNoLock, renamed} {
		assert.NoDirExists(t, gone)
	}
	for _, kept := range append([]string{held, youngNoLock}, others...) {
		assert.DirExists(t, kept)
	}
	assert.NoDirExists(t, free+".gone-"+strconv.Itoa(os.Getpid()), "removed after its rename")
}

// Two binaries of one run share its directory, each with its own; the
// first to leave keeps the run's for the other; one that dies without
// leaving (its lock dropped, as the kernel drops a dead process's) leaves
// the run's directory to the next join's sweep — a later run's parent
// that has the same pid gets a fresh one — and the last binary of a run
// removes its directory.
func TestJoinLeave(t *testing.T) {
	tmp := t.TempDir()
	a, err := join(tmp, 42, 1)
	require.NoError(t, err)
	b, err := join(tmp, 42, 2)
	require.NoError(t, err)
	root := filepath.Join(tmp, "gpuc2-test-42")
	assert.Equal(t, root, a.root)
	assert.Equal(t, filepath.Join(root, "p1"), a.Dir())
	assert.Equal(t, filepath.Join(root, "p2"), b.Dir())
	assert.DirExists(t, a.Dir())

	a.Leave()
	assert.NoDirExists(t, a.Dir())
	assert.DirExists(t, b.Dir(), "b is still in the run")

	b.lock.Close() // b dies: a timeout's panic skips Leave
	stale := filepath.Join(b.Dir(), "gpuc2", "stale.params")
	require.NoError(t, os.MkdirAll(filepath.Dir(stale), 0o700))
	require.NoError(t, os.WriteFile(stale, nil, 0o600))
	again, err := join(tmp, 42, 5)
	require.NoError(t, err)
	assert.NoFileExists(t, stale, "a later parent with pid 42 gets a fresh directory, not the dead run's")
	again.lock.Close()
	c, err := join(tmp, 43, 3)
	require.NoError(t, err)
	assert.NoDirExists(t, root, "swept")
	c.Leave()
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "the last binary of run 43 removed it")
}

// A binary that joins while the last one leaves gets a fresh directory:
// after waiting for the leaver's lock it finds its lock file gone and
// makes the directory again.
func TestJoinWhileLeaving(t *testing.T) {
	tmp := t.TempDir()
	a, err := join(tmp, 44, 1)
	require.NoError(t, err)
	require.True(t, tryLockExclusive(a.lock), "a alone in the run")
	joined := make(chan *Run)
	go func() {
		b, err := join(tmp, 44, 2)
		assert.NoError(t, err)
		joined <- b
	}()
	time.Sleep(100 * time.Millisecond) // b waits for a's lock (or joins after the removal)
	remove(a.root)
	a.lock.Close()
	b := <-joined
	require.NotNil(t, b)
	assert.DirExists(t, b.Dir())
	assert.True(t, current(b.lock), "b holds the lock file that is at the run's path")
	b.Leave()
	assert.NoDirExists(t, a.root)
}

// fakeSetup replaces the setup's maker with one that writes a small file
// and its sidecar, counting the calls.
func fakeSetup(t *testing.T) *atomic.Int32 {
	t.Helper()
	var made atomic.Int32
	saved := create
	create = func(_ context.Context, dir string) error {
		made.Add(1)
		time.Sleep(50 * time.Millisecond) // long enough for the others to wait
		path := gpuc2.TestParamsPath(dir, spt)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte("params"), 0o600); err != nil {
			return err
		}
		return os.WriteFile(groth16.DigestSidecarPath(path), []byte("digest"), 0o600)
	}
	t.Cleanup(func() { create = saved })
	return &made
}

// Binaries asking for the setup at once: one makes it, each gets it
// linked into its own directory; a file left without its sidecar (its
// maker killed between the two) is made again.
func TestSeal2KiBMadeOnce(t *testing.T) {
	made := fakeSetup(t)
	tmp := t.TempDir()
	ctx := context.Background()
	var runs []*Run
	for pid := 1; pid <= 3; pid++ {
		r, err := join(tmp, 45, pid)
		require.NoError(t, err)
		runs = append(runs, r)
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() {
			dir, err := r.Seal2KiB(ctx)
			assert.NoError(t, err)
			assert.Equal(t, r.Dir(), dir)
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), made.Load())
	shared, err := os.Stat(gpuc2.TestParamsPath(runs[0].root, spt))
	require.NoError(t, err)
	for _, r := range runs {
		own, err := os.Stat(gpuc2.TestParamsPath(r.Dir(), spt))
		require.NoError(t, err)
		assert.True(t, os.SameFile(shared, own), "a link to the run's setup")
		assert.FileExists(t, groth16.DigestSidecarPath(gpuc2.TestParamsPath(r.Dir(), spt)))
	}

	require.NoError(t, os.Remove(groth16.DigestSidecarPath(gpuc2.TestParamsPath(runs[0].root, spt))))
	d, err := join(tmp, 45, 4)
	require.NoError(t, err)
	_, err = d.Seal2KiB(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(2), made.Load(), "made again without its sidecar")
	for _, r := range append(runs, d) {
		r.Leave()
	}
	assert.NoDirExists(t, runs[0].root)
}

// startParent starts a process standing for the go command; end kills it
// and waits for it (the pid is gone, as the go command's when it exits).
func startParent(t *testing.T) (pid int, end func()) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	end = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	t.Cleanup(end)
	return cmd.Process.Pid, end
}

// startKeep runs keep in a goroutine, as a keeper process would, and
// waits until it holds keeper.lock; the channel closes when keep returns.
func startKeep(t *testing.T, root string, parent int) <-chan struct{} {
	t.Helper()
	k, err := os.OpenFile(filepath.Join(root, "keeper.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer k.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		keep(root, parent)
	}()
	require.Eventually(t, func() bool {
		probe, err := os.OpenFile(filepath.Join(root, "keeper.lock"), os.O_RDWR, 0)
		if err != nil {
			return false
		}
		defer probe.Close()
		return !tryLockExclusive(probe)
	}, 10*time.Second, time.Millisecond)
	return done
}

// The keeper holds the run's directory after its last binary leaves (for
// the packages still to come) and removes it once the go command has
// exited; a second keeper exits at once.
func TestKeeperRemovesAfterParent(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil || !alive(os.Getpid()) {
		t.Skip("needs sleep(1) and kill(pid, 0)")
	}
	tmp := t.TempDir()
	parent, end := startParent(t)
	a, err := join(tmp, parent, 1)
	require.NoError(t, err)
	done := startKeep(t, a.root, parent)
	keep(a.root, parent) // a second keeper: returns at once

	a.Leave()
	assert.NoDirExists(t, a.Dir())
	assert.DirExists(t, a.root, "kept while the go command runs")
	b, err := join(tmp, parent, 2)
	require.NoError(t, err)
	assert.Equal(t, a.root, b.root, "a later package's binary joins the same run")
	b.Leave()
	assert.DirExists(t, a.root)

	end()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the keeper did not end after its parent")
	}
	assert.NoDirExists(t, a.root)
}

// A binary still in the run when the go command exits (an orphan) keeps
// the directory; its own Leave removes it.
func TestKeeperLeavesLiveBinary(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil || !alive(os.Getpid()) {
		t.Skip("needs sleep(1) and kill(pid, 0)")
	}
	tmp := t.TempDir()
	parent, end := startParent(t)
	a, err := join(tmp, parent, 1)
	require.NoError(t, err)
	done := startKeep(t, a.root, parent)
	end()
	<-done
	assert.DirExists(t, a.Dir(), "a is still in the run")
	a.Leave()
	assert.NoDirExists(t, a.root)
}
