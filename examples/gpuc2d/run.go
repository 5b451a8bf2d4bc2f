package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/cuzk"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/native"
)

// socketMode lets the daemon's user and group (Curio's) use a unix socket.
const socketMode = 0o660

// run parses args, opens the listen addresses, starts the Prover and the
// gRPC server, and serves until the first signal on sigs; then it drains
// (no new proofs, running ones given -drain) and stops. A second signal
// cuts the drain: running proofs are cancelled and it stops at once. ready,
// if set, is told the address served once the daemon accepts calls (tests).
func run(sigs <-chan os.Signal, args []string, stderr io.Writer, ready func(addr string)) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.plan {
		return printPlan(stderr, o)
	}
	log := newLogger(stderr, o)
	ctx, stop := context.WithCancel(context.Background()) // the first signal: stop serving, drain
	defer stop()
	cut, cutDrain := context.WithCancel(context.Background()) // the second: cancel what runs, stop now
	defer cutDrain()
	done := make(chan struct{})
	defer close(done)
	go watchSignals(sigs, done, log, stop, cutDrain)

	// The addresses first: a second daemon on an address served stops here,
	// before minutes of preloading.
	lis, err := listen(o.listen)
	if err != nil {
		return fmt.Errorf("-listen %s: %w", o.listen, err)
	}
	defer lis.Close()
	var metricsLis net.Listener
	if o.metricsListen != "" {
		if metricsLis, err = net.Listen("tcp", o.metricsListen); err != nil {
			return fmt.Errorf("-metrics-listen %s: %w", o.metricsListen, err)
		}
		defer metricsLis.Close()
	}
	warnReachable(log, "-listen", o.listen, lis.Addr(), "submit, cancel and read proofs and load or evict parameters")
	if metricsLis != nil {
		warnReachable(log, "-metrics-listen", o.metricsListen, metricsLis.Addr(), "read the metrics")
	}
	startNotes(log, o)

	prover, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: o.paramsDir, TestParamsDir: o.testParams,
		Backend: gpuc2.Backend(o.backend), Devices: o.devices, DeviceMemoryLimit: o.deviceMem,
		HostMemoryBudget: o.hostMem, WorkersPerDevice: o.workers, Logger: log})
	if err != nil {
		return err
	}
	defer prover.Close()
	srv, err := cuzk.New(cuzk.Config{Prover: prover, ParamsDir: o.paramsDir, TestParamsDir: o.testParams,
		MaxPending: o.maxPending, Retain: o.retain, Log: log})
	if err != nil {
		return err
	}
	// Served from the start, so that a call made while -preload loads is
	// answered, not left in the listener's backlog past its client's
	// connect timeout: health says NOT_SERVING until the preloads are done;
	// a proof submitted meanwhile waits for its key's load like any other.
	g := grpc.NewServer(cuzk.ServerOptions()...)
	srv.Register(g)
	healthSrv := health.NewServer() // Shutdown makes every service NOT_SERVING
	service := pb.ProvingEngine_ServiceDesc.ServiceName
	healthSrv.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	healthSrv.SetServingStatus(service, healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(g, healthSrv)
	reflection.Register(g)
	served := make(chan error, 1)
	go func() { served <- g.Serve(lis) }()
	var metricsSrv *http.Server
	if metricsLis != nil {
		metricsSrv = serveMetrics(metricsLis, srv, log)
	}
	preloadNeeds(log, prover, o)
	if err := preload(ctx, prover, o, log); err != nil {
		healthSrv.Shutdown()
		stopped, cancel := context.WithCancel(context.Background())
		cancel() // the jobs submitted during the preload are cancelled
		srv.Shutdown(stopped)
		g.Stop()
		if metricsSrv != nil {
			_ = metricsSrv.Close()
		}
		if ctx.Err() != nil { // a signal during the preloads
			log.Info("gpuc2d: stopped before the preloads were done")
			return nil
		}
		return err
	}
	healthSrv.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthSrv.SetServingStatus(service, healthpb.HealthCheckResponse_SERVING)
	log.Info("gpuc2d: serving cuzk.v1.ProvingEngine", "listen", o.listen, "backend", prover.Backend(),
		"params", o.paramsDir, "max_pending", o.maxPending, "metrics", o.metricsListen)
	if ready != nil {
		ready(lis.Addr().String())
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("gRPC server: %w", err)
	}
	log.Info("gpuc2d: shutting down: no new proofs; running ones may finish (a second SIGTERM or SIGINT cancels them "+
		"and stops at once)", "drain", o.drain)
	healthSrv.Shutdown()
	drainCtx, cancel := context.WithTimeout(cut, o.drain)
	srv.Shutdown(drainCtx)
	cancel()
	grace := 5 * time.Second
	if cut.Err() != nil {
		grace = time.Second // for the cancelled proofs' answers
	}
	stopGRPC(g, grace)
	if metricsSrv != nil {
		_ = metricsSrv.Close()
	}
	log.Info("gpuc2d: stopped")
	return nil
}

// watchSignals calls stop at the first signal on sigs and cut at the
// second, until done closes.
func watchSignals(sigs <-chan os.Signal, done <-chan struct{}, log *slog.Logger, stop, cut func()) {
	for n := 0; n < 2; n++ {
		select {
		case sig := <-sigs:
			if n == 0 {
				log.Info("gpuc2d: signal received", "signal", sig)
				stop()
			} else {
				log.Warn("gpuc2d: second signal: cancelling the running proofs and stopping now", "signal", sig)
				cut()
			}
		case <-done:
			return
		}
	}
}

// warnReachable warns when a listener can be reached from other machines:
// a TCP address not on loopback (a wildcard such as 0.0.0.0, [::] or
// :port included). flag and value are the flag's; what is what a caller
// can do there.
func warnReachable(log *slog.Logger, flag, value string, a net.Addr, what string) {
	if t, ok := a.(*net.TCPAddr); !ok || t.IP.IsLoopback() {
		return
	}
	log.Warn(fmt.Sprintf("gpuc2d: %s %s can be reached from other machines (bound to %s) and has no authentication: "+
		"anyone who can reach it can %s. Listen on 127.0.0.1 or a unix socket, or firewall the port", flag, value, a, what))
}

// startNotes logs what an operator must know before the first proof: the
// TEST-ONLY setups allowed, and the backend and why.
func startNotes(log *slog.Logger, o *options) {
	if o.testParams != "" {
		if given := filepath.Clean(o.testParamsArg); given != o.testParams {
			log.Info("gpuc2d: -test-params "+o.testParamsArg+" is the TEST-ONLY setups' folder: its cache root is "+
				o.testParams, "setups", testSetupsDir(o.testParams))
		}
		log.Warn("gpuc2d: TEST-ONLY parameters allowed: where " + o.paramsDir + " has no real files, proofs use a local " +
			"TEST-ONLY setup in " + testSetupsDir(o.testParams) + " (made on first use up to 512 MiB). Their proofs verify " +
			"only against that local key, never on chain.")
	}
	if why := o.backendLibrary(); why != "" {
		log.Warn("gpuc2d: proving on the CPU, though "+why+": the CUDA backend did not load (see reason; "+
			"-backend cuda would refuse to start instead)", "reason", o.backendWhy)
	} else {
		log.Info("gpuc2d: backend "+o.backend, "why", o.backendWhy)
	}
}

// backendLibrary says why the CPU is a surprise: -backend auto chose it
// while a library is named ($GPUC2_NATIVE_LIB) or an NVIDIA device is
// present; "" otherwise.
func (o *options) backendLibrary() string {
	if !o.backendAuto || o.backend != "cpu" {
		return ""
	}
	if p := os.Getenv(native.EnvLibrary); p != "" {
		return "$" + native.EnvLibrary + " names " + p
	}
	for _, p := range []string{"/dev/nvidia0", "/proc/driver/nvidia/version"} {
		if _, err := os.Stat(p); err == nil {
			return "this machine has an NVIDIA device (" + p + ")"
		}
	}
	return ""
}

// preload loads -preload's circuits; a missing or unusable file stops the
// daemon before it serves.
func preload(ctx context.Context, prover *gpuc2.Prover, o *options, log *slog.Logger) error {
	for _, id := range o.preload {
		start := time.Now()
		if err := cuzk.Preload(ctx, prover, id); err != nil {
			return fmt.Errorf("-preload %s: %w", id, err)
		}
		log.Info("gpuc2d: parameters preloaded", "circuit", id, "seconds", time.Since(start).Seconds())
	}
	return nil
}

// preloadNeeds logs, before -preload loads them, what its circuits need
// together as the resource model has it (gpuc2.CircuitsRequirements, in
// -preload's order, under the GPUs' memory limits): where each key will be
// held, the host RAM, pinned memory and VRAM of the set; and a warning when
// the set as given would not be served (a preload that would wait for
// ever, proofs that would never find device memory or host budget).
func preloadNeeds(log *slog.Logger, prover *gpuc2.Prover, o *options) {
	if len(o.preload) == 0 {
		return
	}
	cfg := gpuc2.Config{ParamsDir: o.paramsDir, TestParamsDir: o.testParams, Backend: prover.Backend(),
		DeviceMemoryLimit: o.deviceMem, HostMemoryBudget: o.hostMem, WorkersPerDevice: o.workers}
	for i, d := range prover.Status().Devices { // the limits the devices were opened with
		if i == 0 || d.Gate.MemoryLimitBytes < cfg.DeviceMemoryLimit {
			cfg.DeviceMemoryLimit = d.Gate.MemoryLimitBytes
		}
	}
	s, err := gpuc2.CircuitsRequirements(o.preload, cfg)
	if err != nil {
		log.Warn("gpuc2d: -preload's needs not modelled", "err", err)
		return
	}
	keys := make([]string, len(s.Circuits))
	for i, c := range s.Circuits {
		keys[i] = c.ID + ":" + string(c.Key)
		if c.Key == "" {
			keys[i] = c.ID + ":never"
		}
	}
	log.Info("gpuc2d: -preload's circuits together need (modelled)", "keys", strings.Join(keys, ","),
		"keys_bytes", s.KeysBytes, "host_bytes", s.HostBytes, "pinned_bytes", s.PinnedBytes, "vram_bytes", s.VRAMBytes,
		"device_memory_limit", s.DeviceMemoryLimit)
	if s.Stall != "" {
		log.Warn("gpuc2d: -preload as given would not be served (README: one host, all four kinds): " + s.Stall)
	}
}

// printPlan writes -plan's answer: gpuc2.CircuitsRequirements for
// -preload's circuits in its order, under -device-memory (0: no limit) and
// -host-memory, -workers a GPU, as a table.
func printPlan(w io.Writer, o *options) error {
	cfg := gpuc2.Config{Backend: gpuc2.Backend(o.backend), DeviceMemoryLimit: o.deviceMem, HostMemoryBudget: o.hostMem,
		WorkersPerDevice: o.workers}
	s, err := gpuc2.CircuitsRequirements(o.preload, cfg)
	if err != nil {
		return err
	}
	gib := func(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
	limit := "none"
	if s.DeviceMemoryLimit > 0 {
		limit = gib(s.DeviceMemoryLimit)
	}
	fmt.Fprintf(w, "-preload %s, backend %s, device memory limit %s (modelled: gpuc2.CircuitsRequirements)\n",
		strings.Join(o.preload, ","), o.backend, limit)
	fmt.Fprintf(w, "%-12s %-7s %-13s %-13s %s\n", "circuit", "key", "proofs a GPU", "urgent proof", "stall")
	for _, c := range s.Circuits {
		aside := "-" // device memory set aside beside the key for its urgent proof
		if c.SetAsideBytes > 0 {
			aside = gib(c.SetAsideBytes)
		}
		fmt.Fprintf(w, "%-12s %-7s %-13d %-13s %s\n", c.ID, c.Key, c.ProofsPerGPU, aside, c.Stall)
	}
	fmt.Fprintf(w, "keys %s, host RAM %s, pinned %s, VRAM %s\n", gib(s.KeysBytes), gib(s.HostBytes), gib(s.PinnedBytes),
		gib(s.VRAMBytes))
	if s.Stall != "" {
		fmt.Fprintf(w, "not served: %s\n", s.Stall)
	}
	return nil
}

// listen opens -listen: a unix socket (a stale socket file replaced; mode
// socketMode) or a TCP address.
func listen(s string) (net.Listener, error) {
	a, err := listenAddr(s)
	if err != nil {
		return nil, err
	}
	if a.network != "unix" {
		return net.Listen(a.network, a.addr)
	}
	if err := os.MkdirAll(filepath.Dir(a.addr), 0o750); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(a.addr); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", a.addr)
		}
		if c, err := net.Dial("unix", a.addr); err == nil {
			c.Close()
			return nil, fmt.Errorf("another process serves %s (a gpuc2d running already?)", a.addr)
		}
		if err := os.Remove(a.addr); err != nil {
			return nil, err
		}
	}
	lis, err := net.Listen("unix", a.addr)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(a.addr, socketMode); err != nil {
		lis.Close()
		return nil, err
	}
	return lis, nil
}

// serveMetrics serves /metrics over HTTP on lis.
func serveMetrics(lis net.Listener, srv *cuzk.Server, log *slog.Logger) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", srv.MetricsHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("gpuc2d: metrics server", "err", err)
		}
	}()
	return hs
}

// stopGRPC stops g gracefully (calls in flight answered), or at once after
// grace.
func stopGRPC(g *grpc.Server, grace time.Duration) {
	done := make(chan struct{})
	go func() { g.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		g.Stop()
	}
}

func newLogger(w io.Writer, o *options) *slog.Logger {
	opts := &slog.HandlerOptions{Level: o.level}
	if o.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
