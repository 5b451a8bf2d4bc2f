package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// syncBuffer is a log written by one goroutine and read by another.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// background is a daemon run in-process by run, on the CPU with no
// parameters.
type background struct {
	addr string // what it serves, once ready
	logs *syncBuffer
	done chan error
	sigs chan os.Signal
}

// startDaemon runs the daemon with args after "-backend cpu -params
// <empty>" and waits until it serves; the test's end stops it.
func startDaemon(t *testing.T, args ...string) *background {
	t.Helper()
	b := &background{logs: &syncBuffer{}, done: make(chan error, 1), sigs: make(chan os.Signal, 2)}
	ready := make(chan string, 1)
	args = append([]string{"-backend", "cpu", "-params", t.TempDir()}, args...)
	go func() { b.done <- run(b.sigs, args, b.logs, func(addr string) { ready <- addr }) }()
	select {
	case b.addr = <-ready:
	case err := <-b.done:
		t.Fatalf("gpuc2d %q: %v\n%s", args, err, b.logs)
	case <-time.After(time.Minute):
		t.Fatalf("gpuc2d %q did not start serving:\n%s", args, b.logs)
	}
	t.Cleanup(func() { b.stop(t) })
	return b
}

// stop sends SIGTERM (once) and waits for run to return.
func (b *background) stop(t *testing.T) {
	t.Helper()
	select {
	case b.sigs <- syscall.SIGTERM:
	default:
	}
	select {
	case err := <-b.done:
		assert.NoError(t, err, "%s", b.logs)
		b.done <- err
	case <-time.After(time.Minute):
		t.Errorf("gpuc2d did not stop:\n%s", b.logs)
	}
}

// A second daemon on an address already served stops at once, naming the
// address, before it loads any -preload key: for a unix socket and for TCP.
func TestSecondDaemonStopsBeforePreload(t *testing.T) {
	sockDir, err := os.MkdirTemp("", "d")
	require.NoError(t, err)
	defer os.RemoveAll(sockDir)
	sock := "unix://" + filepath.Join(sockDir, "d.sock")
	first := startDaemon(t, "-listen", sock)
	tcp := startDaemon(t, "-listen", "127.0.0.1:0")
	for _, tc := range []struct{ listen, want string }{
		{sock, "another process serves"},
		{tcp.addr, "address already in use"},
	} {
		var logs syncBuffer
		start := time.Now()
		// porep-32g's parameters are missing: a daemon that got that far
		// would fail on them instead.
		err := run(nil, []string{"-backend", "cpu", "-params", t.TempDir(), "-preload", "porep-32g", "-listen", tc.listen},
			&logs, func(string) { t.Error("served") })
		require.Error(t, err, tc.listen)
		assert.Contains(t, err.Error(), "-listen "+tc.listen, "names the flag and address")
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), "preload", "refused before any preload")
		assert.NotContains(t, logs.String(), "prover ready", "refused before the Prover starts")
		assert.Less(t, time.Since(start), 10*time.Second)
	}
	c, err := grpc.NewClient(sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer c.Close()
	_, err = pb.NewProvingEngineClient(c).GetStatus(context.Background(), &pb.GetStatusRequest{})
	assert.NoError(t, err, "the first daemon still serves its socket: %s", first.logs)
}

// A listen address that other machines can reach (any but loopback: a
// wildcard, :port, a public address) is warned about, for -listen and
// -metrics-listen; loopback is not. gpuc2d serves PoSt: no start-up line
// tells a Curio node to turn it off. The health service answers for the
// ProvingEngine service by name.
func TestStartWarnings(t *testing.T) {
	exposed := func(logs, flag string) bool {
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, `msg="gpuc2d: `+flag+" ") &&
				strings.Contains(line, "no authentication") {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		listen, metrics string
		warn            bool
	}{
		{"0.0.0.0:0", "0.0.0.0:0", true},
		{":0", ":0", true},
		{"127.0.0.1:0", "127.0.0.1:0", false},
		{"localhost:0", "[::1]:0", false},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			d := startDaemon(t, "-listen", tc.listen, "-metrics-listen", tc.metrics)
			logs := d.logs.String()
			assert.Equal(t, tc.warn, exposed(logs, "-listen"), "-listen %s:\n%s", tc.listen, logs)
			assert.Equal(t, tc.warn, exposed(logs, "-metrics-listen"), "-metrics-listen %s:\n%s", tc.metrics, logs)
			if tc.warn {
				assert.Contains(t, logs, "anyone who can reach")
			}
		})
	}

	d := startDaemon(t, "-listen", "127.0.0.1:0")
	for _, stale := range []string{"WINDOW_POST_PARTITION", "EnableWindowPost", "EnableWinningPost", "not served"} {
		assert.NotContains(t, d.logs.String(), stale, "no start-up line says PoSt is not served")
	}

	c, err := grpc.NewClient(d.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer c.Close()
	h, err := healthpb.NewHealthClient(c).Check(context.Background(), &healthpb.HealthCheckRequest{Service: pb.ProvingEngine_ServiceDesc.ServiceName})
	require.NoError(t, err)
	assert.Equal(t, healthpb.HealthCheckResponse_SERVING, h.GetStatus())
}

// -test-params is the cache root (its setups are in gpuc2/test-params
// under it): the setups folder itself is taken as its root; a folder that
// holds setups but is no such folder is refused by name. The start's log
// names where the setups are.
func TestTestParamsFolder(t *testing.T) {
	root := t.TempDir()
	setups := filepath.Dir(gpuc2.TestParamsPath(root, abi.RegisteredSealProof_StackedDrg2KiBV1_1))
	require.Equal(t, filepath.Join(root, "gpuc2", "test-params"), setups)
	for _, arg := range []string{root, setups, setups + "/"} {
		o, err := parseFlags([]string{"-backend", "cpu", "-test-params", arg}, &bytes.Buffer{})
		require.NoError(t, err, arg)
		assert.Equal(t, root, o.testParams, "-test-params %s", arg)
	}

	elsewhere := filepath.Join(t.TempDir(), "setups")
	require.NoError(t, os.MkdirAll(elsewhere, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "TEST-ONLY-StackedDrg2KiBV1_1.params"), nil, 0o600))
	_, err := parseFlags([]string{"-backend", "cpu", "-test-params", elsewhere}, &bytes.Buffer{})
	assert.Equal(t, 2, cli.Code(err), "%v", err)
	assert.ErrorContains(t, err, "-test-params "+elsewhere)
	assert.ErrorContains(t, err, filepath.Join(elsewhere, "gpuc2", "test-params"), "says where setups are looked for")

	for _, arg := range []string{root, setups} {
		d := startDaemon(t, "-listen", "127.0.0.1:0", "-test-params", arg)
		assert.Contains(t, d.logs.String(), setups+" ", "the log names the setups' folder")
		assert.NotContains(t, d.logs.String(), filepath.Join(setups, "gpuc2"))
	}
}

// A daemon told to prove on the CPU by default (-backend auto) while a
// library is named (GPUC2_NATIVE_LIB) warns, with the loader's reason.
func TestNativeLibMissingWarns(t *testing.T) {
	if native.Available() {
		t.Skip("the native library loads here")
	}
	missing := filepath.Join(t.TempDir(), "no", native.LibraryName)
	args := []string{"-backend", "auto", "-params", t.TempDir(), "-preload", "porep-32g", "-listen", "127.0.0.1:0"}
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "GPUC2D_TEST_ARGS="+strings.Join(args, "\n"), native.EnvLibrary+"="+missing)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	assert.Equal(t, 1, ee.ExitCode(), "porep-32g's parameters are missing: %s", out)
	var warn string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, "CPU") {
			warn = line
		}
	}
	require.NotEmpty(t, warn, "a warning that the CPU proves:\n%s", out)
	assert.Contains(t, warn, missing, "the loader's reason")
}

// A second SIGTERM during the drain cancels the running proof and stops at
// once; while draining, health says NOT_SERVING.
func TestSecondSignalCutsDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 2 KiB proof in a subprocess")
	}
	sockDir, err := os.MkdirTemp("", "d")
	require.NoError(t, err)
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "d.sock")
	args := []string{"-backend", "cpu", "-params", t.TempDir(), "-test-params", testParamsDir(t), "-preload", "porep-2k",
		"-listen", "unix://" + sock, "-workers", "1", "-drain", "10m"}
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "GPUC2D_TEST_ARGS="+strings.Join(args, "\n"))
	logs := &syncBuffer{}
	cmd.Stderr = logs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()

	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(256<<20)))
	require.NoError(t, err)
	defer conn.Close()
	client, health := pb.NewProvingEngineClient(conn), healthpb.NewHealthClient(conn)
	ctx := context.Background()
	serving := func() healthpb.HealthCheckResponse_ServingStatus {
		h, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: pb.ProvingEngine_ServiceDesc.ServiceName})
		if err != nil {
			return -1
		}
		return h.GetStatus()
	}
	require.Eventually(t, func() bool { return serving() == healthpb.HealthCheckResponse_SERVING }, 5*time.Minute,
		50*time.Millisecond, "the daemon did not start serving: %s", logs)

	c, err := porep.SyntheticC1(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_1, 1000, 1, sha256.Sum256([]byte("x")))
	require.NoError(t, err)
	env, err := porep.EncodeCommit2In(c, 1)
	require.NoError(t, err)
	s, err := client.SubmitProof(ctx, &pb.SubmitProofRequest{ProofKind: pb.ProofKind_POREP_SEAL_COMMIT, SectorSize: 2048,
		RegisteredProof: uint64(abi.RegisteredSealProof_StackedDrg2KiBV1_1), VanillaProof: env, SectorNumber: 1, MinerId: 1000})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := client.GetStatus(ctx, &pb.GetStatusRequest{})
		return err == nil && st.GetQueues()[0].GetInProgress() == 1
	}, 5*time.Minute, time.Millisecond, "the proof did not start")
	awaited := make(chan *pb.AwaitProofResponse, 1)
	go func() {
		r, err := client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: s.GetJobId()})
		assert.NoError(t, err)
		awaited <- r
	}()
	time.Sleep(50 * time.Millisecond) // the await is in

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Eventually(t, func() bool { return serving() == healthpb.HealthCheckResponse_NOT_SERVING }, 10*time.Second,
		10*time.Millisecond, "health while draining: %s", logs)
	cut := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case r := <-awaited:
		assert.Equal(t, pb.AwaitProofResponse_CANCELLED, r.GetStatus(), "the running proof is cancelled")
	case <-time.After(time.Minute):
		t.Fatalf("the running proof was not cut: %s", logs)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("exit %d: %s", ee.ExitCode(), logs)
		}
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatalf("the daemon did not exit: %s", logs)
	}
	t.Logf("stopped %v after the second signal", time.Since(cut))
	assert.Contains(t, logs.String(), "second signal")
	assert.Contains(t, logs.String(), "gpuc2d: stopped")
}

// While -preload loads (here a TEST-ONLY 8 MiB setup made on demand:
// minutes), the daemon already answers: health NOT_SERVING for "" and for
// the service, GetStatus; a call does not wait in the listener's backlog
// past its client's connect timeout. A signal then stops it without
// serving.
func TestAnswersWhilePreloading(t *testing.T) {
	sockDir, err := os.MkdirTemp("", "d")
	require.NoError(t, err)
	defer os.RemoveAll(sockDir)
	sock := "unix://" + filepath.Join(sockDir, "d.sock")
	sigs := make(chan os.Signal, 2)
	var logs syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(sigs, []string{"-backend", "cpu", "-params", t.TempDir(), "-test-params", t.TempDir(),
			"-preload", "porep-8m", "-listen", sock}, &logs, func(string) { t.Error("ready before the preload ended") })
	}()
	c, err := grpc.NewClient(sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer c.Close()
	h := healthpb.NewHealthClient(c)
	check := func(service string) (*healthpb.HealthCheckResponse, error) {
		deadline := time.Now().Add(time.Minute)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			r, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: service}, grpc.WaitForReady(true))
			cancel()
			if err == nil || time.Now().After(deadline) {
				return r, err
			}
		}
	}
	for _, service := range []string{"", pb.ProvingEngine_ServiceDesc.ServiceName} {
		r, err := check(service)
		require.NoError(t, err, "health %q while preloading:\n%s", service, logs.String())
		assert.Equal(t, healthpb.HealthCheckResponse_NOT_SERVING, r.GetStatus(), "health %q while preloading", service)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = pb.NewProvingEngineClient(c).GetStatus(ctx, &pb.GetStatusRequest{})
	assert.NoError(t, err, "GetStatus while preloading")
	sigs <- syscall.SIGTERM
	select {
	case err := <-done:
		assert.NoError(t, err, "%s", logs.String())
		assert.Contains(t, logs.String(), "stopped before the preloads were done")
	case <-time.After(2 * time.Minute):
		t.Fatalf("gpuc2d did not stop during its preload:\n%s", logs.String())
	}
}
