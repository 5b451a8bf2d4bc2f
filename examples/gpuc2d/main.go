// Command gpuc2d is gpuc2's proving daemon: it serves Curio's proving-daemon
// protocol (cuzk.v1.ProvingEngine over gRPC) over one gpuc2.Prover, so that
// a Curio node proves its PoRep C2, SnapDeals update, WindowPoSt and
// WinningPoSt proofs on gpuc2 by setting
// [Cuzk] Address = "unix:///run/gpuc2/gpuc2d.sock" (or "127.0.0.1:9820").
//
//	go install github.com/gpuc2/gpuc2/examples/gpuc2d@main
//	gpuc2d -listen unix:///run/gpuc2/gpuc2d.sock -preload porep-32g
//
// It owns the GPUs and keeps the parameters loaded between proofs; jobs
// queue in the Prover's pipeline by priority (CRITICAL, HIGH, NORMAL,
// LOW). It serves the four kinds Curio sends: POREP_SEAL_COMMIT,
// SNAP_DEALS_UPDATE (-preload snap-32g loads the update circuit's
// parameters), WINDOW_POST_PARTITION (Curio sends it at HIGH) and
// WINNING_POST (at CRITICAL), whose parameters are Filecoin's
// v28-proof-of-spacetime-fallback-… files (curio fetch-params). GetStatus,
// GetMetrics (and -metrics-listen's /metrics), gRPC reflection and the
// standard health service are on. The protocol has no authentication: listen on a
// unix socket (mode 0660), on localhost (the default) or on a private
// network only.
//
// Every flag may also be set in a TOML file (-config) under the flag's
// name (preload and devices as a string or an array); the command line
// wins. SIGTERM or SIGINT: no new proofs, queued ones cancelled, running
// ones given -drain to finish, then cancelled; exit 0. A second one cancels
// them at once.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	err := run(sigs, os.Args[1:], os.Stderr, nil)
	signal.Stop(sigs)
	cli.Exit("gpuc2d", err)
}
