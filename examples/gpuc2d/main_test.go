package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/internal/testparams"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// testRun holds the TEST-ONLY 2 KiB setup the daemon's proofs use: made
// once per go test run and shared with the other packages' binaries
// (internal/testparams).
var testRun *testparams.Run

// testParamsDir is a -test-params directory holding the 2 KiB setup.
func testParamsDir(t *testing.T) string {
	t.Helper()
	dir, err := testRun.Seal2KiB(context.Background())
	require.NoError(t, err)
	return dir
}

// The test binary runs the daemon itself when GPUC2D_TEST_ARGS is set (the
// SIGTERM test's subprocess).
func TestMain(m *testing.M) {
	if args := os.Getenv("GPUC2D_TEST_ARGS"); args != "" {
		main2(strings.Split(args, "\n"))
	}
	testRun = testparams.Join()
	code := m.Run()
	testRun.Leave()
	os.Exit(code)
}

func main2(args []string) {
	os.Args = append([]string{"gpuc2d"}, args...)
	main()
}

func TestFlags(t *testing.T) {
	var out bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &out)
	assert.ErrorIs(t, err, flag.ErrHelp)
	for _, name := range []string{"listen", "params", "test-params", "preload", "devices", "device-memory", "host-memory",
		"workers", "max-pending", "drain", "log-format", "metrics-listen", "config", "backend", "retain", "log-level"} {
		assert.Contains(t, out.String(), "  -"+name+" ", "-h lists -%s", name)
	}
	for _, want := range []string{"PoRep C2, SnapDeals\nupdate, WindowPoSt and WinningPoSt proofs"} {
		assert.Contains(t, out.String(), want, "-h says what is served")
	}
	for _, bad := range [][]string{
		{"-preload", "porep-1t"}, {"-listen", "nowhere"}, {"-log-format", "xml"}, {"-max-pending", "-1"},
		{"-backend", "cpu", "-device-memory", "16GiB"}, {"-workers", "-2"}, {"stray"}, {"-log-level", "loud"},
	} {
		_, err := parseFlags(bad, &out)
		assert.Equal(t, 2, cli.Code(err), "%v: %v", bad, err)
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "gpuc2d.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("listen = \"unix:///run/x.sock\"\nmax-pending = 7\npreload = [\"porep-2k\", \"porep-8m\"]\nbackend = \"cpu\"\n"), 0o600))
	o, err := parseFlags([]string{"-config", cfg, "-max-pending", "9"}, &out)
	require.NoError(t, err)
	assert.Equal(t, "unix:///run/x.sock", o.listen)
	assert.Equal(t, 9, o.maxPending, "the command line wins")
	assert.Equal(t, []string{"porep-2k", "porep-8m"}, o.preload)
	require.NoError(t, os.WriteFile(cfg, []byte("listne = \"x\"\n"), 0o600))
	_, err = parseFlags([]string{"-config", cfg}, &out)
	assert.ErrorContains(t, err, `unknown key "listne"`)
	assert.Equal(t, 2, cli.Code(err))
}

// -plan prints the resource model's placement of -preload's circuits for a
// GPU host, without a GPU or parameter files, and serves nothing: at 16 GiB
// only WinningPoSt's small key is resident (the README's four-kinds table).
func TestPlan(t *testing.T) {
	var out bytes.Buffer
	err := run(nil, []string{"-plan", "-params", t.TempDir(), "-preload", "porep-32g,snap-32g,wpost-32g,winning-32g",
		"-workers", "2", "-host-memory", "128GiB", "-device-memory", "16GiB", "-listen", "nowhere:x"}, &out,
		func(string) { t.Error("served") })
	require.NoError(t, err, out.String())
	assert.Contains(t, out.String(), "backend cuda, device memory limit 16.0 GiB")
	for _, row := range []string{"porep-32g    pinned", "snap-32g     pinned", "wpost-32g    pinned", "winning-32g  device  2"} {
		assert.Contains(t, out.String(), row)
	}
	assert.Contains(t, out.String(), "keys 133.0 GiB")
	_, err = parseFlags([]string{"-plan"}, &out)
	assert.Equal(t, 2, cli.Code(err), "-plan without -preload: %v", err)
}

// A preloaded circuit without parameters stops the daemon before it serves,
// naming the file.
func TestPreloadMissingRefusesToStart(t *testing.T) {
	var stderr bytes.Buffer
	err := run(nil, []string{"-backend", "cpu", "-params", t.TempDir(), "-preload", "porep-32g",
		"-listen", "127.0.0.1:0"}, &stderr, func(string) { t.Error("served") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-preload porep-32g")
	assert.Contains(t, err.Error(), "parameters missing")
	assert.Contains(t, err.Error(), ".params")
	assert.Contains(t, err.Error(), "-test-params", "the TEST-ONLY alternative, named as gpuc2d's flag")
	// Before it loads, what the set needs, as the resource model has it.
	assert.Contains(t, stderr.String(), "-preload's circuits together need (modelled)")
	assert.Contains(t, stderr.String(), "keys=porep-32g:host")
}

// -preload takes the SnapDeals circuits too: one whose parameters are
// missing stops the daemon before it serves, naming the circuit.
func TestPreloadSnapMissingRefusesToStart(t *testing.T) {
	var stderr bytes.Buffer
	err := run(nil, []string{"-backend", "cpu", "-params", t.TempDir(), "-preload", "snap-32g",
		"-listen", "127.0.0.1:0"}, &stderr, func(string) { t.Error("served") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-preload snap-32g")
	assert.NotEqual(t, 2, cli.Code(err), "a served circuit id, refused for its parameters only: %v", err)
}

// SIGTERM: no new proofs, the running one finishes, exit 0.
func TestSIGTERMDrains(t *testing.T) {
	if testing.Short() {
		t.Skip("proves 2 KiB sectors in a subprocess")
	}
	sockDir, err := os.MkdirTemp("", "d")
	require.NoError(t, err)
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "d.sock")
	// -drain: the running proof must finish within it, and a 2 KiB proof
	// on a loaded 2-core machine took more than 5 minutes (issue 54).
	args := []string{"-backend", "cpu", "-params", t.TempDir(), "-test-params", testParamsDir(t), "-preload", "porep-2k",
		"-listen", "unix://" + sock, "-workers", "1", "-drain", "30m"}
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "GPUC2D_TEST_ARGS="+strings.Join(args, "\n"))
	var logs bytes.Buffer
	cmd.Stderr = &logs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()

	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(256<<20)))
	require.NoError(t, err)
	defer conn.Close()
	client := pb.NewProvingEngineClient(conn)
	ctx := context.Background()
	require.Eventually(t, func() bool {
		h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		return err == nil && h.GetStatus() == healthpb.HealthCheckResponse_SERVING
	}, 5*time.Minute, 50*time.Millisecond, "the daemon did not start serving: %s", &logs)
	if fi, err := os.Stat(sock); assert.NoError(t, err) {
		assert.Equal(t, os.FileMode(socketMode), fi.Mode().Perm(), "the socket's mode")
	}

	submit := func(sector abi.SectorNumber) (*pb.SubmitProofResponse, error) {
		c, err := porep.SyntheticC1(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_1, 1000, sector, sha256.Sum256([]byte("x")))
		require.NoError(t, err)
		env, err := porep.EncodeCommit2In(c, sector)
		require.NoError(t, err)
		return client.SubmitProof(ctx, &pb.SubmitProofRequest{ProofKind: pb.ProofKind_POREP_SEAL_COMMIT, SectorSize: 2048,
			RegisteredProof: uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_1), VanillaProof: env, SectorNumber: uint64(sector), MinerId: 1000})
	}
	s, err := submit(1)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := client.GetStatus(ctx, &pb.GetStatusRequest{})
		return err == nil && len(st.GetQueues()) >= 2 && st.GetQueues()[0].GetProofKind() == "POREP_SEAL_COMMIT" &&
			st.GetQueues()[0].GetInProgress() == 1
	}, 5*time.Minute, time.Millisecond, "the proof did not start")
	awaited := make(chan *pb.AwaitProofResponse, 1)
	go func() {
		r, err := client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: s.GetJobId()})
		assert.NoError(t, err)
		awaited <- r
	}()
	time.Sleep(50 * time.Millisecond) // the await is in
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Eventually(t, func() bool { _, err := submit(2); return err != nil }, 10*time.Second, 10*time.Millisecond,
		"a submit after SIGTERM was accepted")
	r := <-awaited
	assert.Equal(t, pb.AwaitProofResponse_COMPLETED, r.GetStatus(), "the running proof finishes: %s", r.GetErrorMessage())
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("exit %d: %s", ee.ExitCode(), &logs)
		}
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatalf("the daemon did not exit: %s", &logs)
	}
	assert.Contains(t, logs.String(), "gpuc2d: stopped")
	_, err = os.Stat(sock)
	assert.True(t, os.IsNotExist(err), "the socket is removed")
}
