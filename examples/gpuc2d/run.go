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
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/internal/provingengine"
)

// socketMode lets the daemon's user and group (Curio's) use a unix socket.
const socketMode = 0o660

// run parses args, starts the Prover and the gRPC server, serves until ctx
// ends (a signal), then drains and stops. ready, if set, is told the
// address served once the daemon accepts calls (tests).
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := newLogger(stderr, o)
	if o.testParams != "" {
		log.Warn("gpuc2d: TEST-ONLY parameters allowed: where " + o.paramsDir + " has no real files, proofs use a local " +
			"TEST-ONLY setup under " + o.testParams + " (made on first use up to 512 MiB). Their proofs verify only against " +
			"that local key, never on chain.")
	}
	prover, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: o.paramsDir, TestParamsDir: o.testParams,
		Backend: gpuc2.Backend(o.backend), Devices: o.devices, DeviceMemoryLimit: o.deviceMem,
		HostMemoryBudget: o.hostMem, WorkersPerDevice: o.workers, Logger: log})
	if err != nil {
		return err
	}
	defer prover.Close()
	if err := preload(ctx, prover, o, log); err != nil {
		return err
	}
	srv, err := provingengine.New(provingengine.Config{Prover: prover, ParamsDir: o.paramsDir, TestParamsDir: o.testParams,
		MaxPending: o.maxPending, Retain: o.retain, Log: log})
	if err != nil {
		return err
	}
	lis, err := listen(o.listen)
	if err != nil {
		return err
	}
	g := grpc.NewServer(provingengine.ServerOptions()...)
	srv.Register(g)
	healthSrv := health.NewServer()
	healthpb.RegisterHealthServer(g, healthSrv)
	reflection.Register(g)
	served := make(chan error, 1)
	go func() { served <- g.Serve(lis) }()
	var metricsSrv *http.Server
	if o.metricsListen != "" {
		if metricsSrv, err = serveMetrics(o.metricsListen, srv, log); err != nil {
			g.Stop()
			return err
		}
	}
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
	log.Info("gpuc2d: shutting down: no new proofs; running ones may finish", "drain", o.drain)
	healthSrv.Shutdown()
	drainCtx, cancel := context.WithTimeout(context.Background(), o.drain)
	srv.Shutdown(drainCtx)
	cancel()
	stopGRPC(g, 5*time.Second)
	if metricsSrv != nil {
		_ = metricsSrv.Close()
	}
	log.Info("gpuc2d: stopped")
	return nil
}

// preload loads -preload's circuits; a missing or unusable file stops the
// daemon before it serves.
func preload(ctx context.Context, prover *gpuc2.Prover, o *options, log *slog.Logger) error {
	for _, id := range o.preload {
		start := time.Now()
		if err := provingengine.Preload(ctx, prover, id); err != nil {
			return fmt.Errorf("-preload %s: %w", id, err)
		}
		log.Info("gpuc2d: parameters preloaded", "circuit", id, "seconds", time.Since(start).Seconds())
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
			return nil, fmt.Errorf("-listen %s: %s exists and is not a socket", s, a.addr)
		}
		if c, err := net.Dial("unix", a.addr); err == nil {
			c.Close()
			return nil, fmt.Errorf("-listen %s: another process serves %s", s, a.addr)
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

// serveMetrics serves /metrics over HTTP at addr.
func serveMetrics(addr string, srv *provingengine.Server, log *slog.Logger) (*http.Server, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-metrics-listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", srv.MetricsHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("gpuc2d: metrics server", "err", err)
		}
	}()
	return hs, nil
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
