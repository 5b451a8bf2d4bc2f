// Command cuzkclient drives a proving daemon (gpuc2d, or any server of
// Curio's cuzk.v1.ProvingEngine) as Curio does, from another process: it
// makes -count synthetic sectors' C1 outputs (or reads -c1), wraps each in
// the Commit2In envelope Curio sends, submits them all at once
// (SubmitProof, as Curio's PoRep task fills it), awaits them, and prints
// the time to send each C1, each proof's latency and timings, and the
// steady state (first done → last done over count-1, as c2prove counts
// it). The daemon self-verifies every proof; -status prints GetStatus
// instead, -metrics GetMetrics.
//
// -kind snap sends SnapDeals update proofs instead (SNAP_DEALS_UPDATE, as
// Curio's ProveUpdateCuzk fills it): -count synthetic sector updates
// (synth/update), their partition proofs in vanilla_proofs and the
// commitments as 32 raw bytes or, with -commitments cid, as binary CIDs.
//
//	go run ./examples/cuzkclient -addr unix:///run/gpuc2/gpuc2d.sock -sector-size 32GiB -count 4
//	go run ./examples/cuzkclient -addr unix:///run/gpuc2/gpuc2d.sock -kind snap -sector-size 32GiB -count 2
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/update"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	cli.Exit("cuzkclient", err)
}

type options struct {
	addr        string
	kind        string
	commitments string
	sectorSize  string
	c1File      string
	count       int
	sector      uint64
	miner       uint64
	priority    string
	status      bool
	metrics     bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := &options{}
	fs := flag.NewFlagSet("cuzkclient", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:9820", "the daemon: host:port or unix:///path.sock (as Curio's [Cuzk] Address)")
	fs.StringVar(&o.kind, "kind", "porep", "porep (POREP_SEAL_COMMIT) or snap (SNAP_DEALS_UPDATE, synthetic sector updates)")
	fs.StringVar(&o.commitments, "commitments", "raw", "-kind snap: send comm_r_old, comm_r_new, comm_d_new as raw (32 bytes, as Curio's ProveUpdateCuzk) or cid (binary CIDs)")
	fs.StringVar(&o.sectorSize, "sector-size", "2KiB", "synthetic sectors' size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	fs.StringVar(&o.c1File, "c1", "", "prove this C1 output (JSON or Commit2In envelope) -count times instead")
	fs.IntVar(&o.count, "count", 1, "proofs submitted at once")
	fs.Uint64Var(&o.sector, "sector-number", 1, "first sector number (synthetic sectors get consecutive ones)")
	fs.Uint64Var(&o.miner, "miner-id", 1000, "miner actor id")
	fs.StringVar(&o.priority, "priority", "NORMAL", "LOW, NORMAL, HIGH or CRITICAL")
	fs.BoolVar(&o.status, "status", false, "print GetStatus (JSON) and exit")
	fs.BoolVar(&o.metrics, "metrics", false, "print GetMetrics (Prometheus text) and exit")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	prio, ok := pb.Priority_value[o.priority]
	if !ok || o.count < 1 {
		return cli.Usagef("-priority %q or -count %d: want LOW, NORMAL, HIGH or CRITICAL, and a count of at least 1", o.priority, o.count)
	}
	switch {
	case o.kind != "porep" && o.kind != "snap":
		return cli.Usagef("-kind %q: want porep or snap", o.kind)
	case o.commitments != "raw" && o.commitments != "cid":
		return cli.Usagef("-commitments %q: want raw or cid", o.commitments)
	case o.kind == "snap" && o.c1File != "":
		return cli.Usagef("-c1 is a PoRep C1 output: -kind snap proves synthetic updates only")
	}
	target := o.addr
	if !strings.Contains(target, "://") && !strings.HasPrefix(target, "unix:") {
		target = "dns:///" + target // as Curio's client dials a bare host:port
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := pb.NewProvingEngineClient(conn)
	switch {
	case o.status:
		st, err := client.GetStatus(ctx, &pb.GetStatusRequest{})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, protojson.MarshalOptions{Multiline: true, EmitUnpopulated: true}.Format(st))
		return nil
	case o.metrics:
		m, err := client.GetMetrics(ctx, &pb.GetMetricsRequest{})
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, m.GetPrometheusText())
		return nil
	}
	build := requests
	if o.kind == "snap" {
		build = snapRequests
	}
	reqs, err := build(ctx, o, pb.Priority(prio))
	if err != nil {
		return err
	}
	return prove(ctx, client, reqs, stdout)
}

// requests are the submits, as Curio's PoRepSnarkCuzk fills them.
func requests(ctx context.Context, o *options, prio pb.Priority) ([]*pb.SubmitProofRequest, error) {
	var fixed *porep.C1
	if o.c1File != "" {
		raw, err := os.ReadFile(o.c1File)
		if err != nil {
			return nil, err
		}
		if fixed, err = porep.ParseC1(raw); err != nil {
			return nil, fmt.Errorf("-c1 %s: %w", o.c1File, err)
		}
	}
	spt, err := porep.ProofForSectorSize(o.sectorSize)
	if err != nil {
		return nil, cli.Usagef("-sector-size: %w", err)
	}
	out := make([]*pb.SubmitProofRequest, o.count)
	for i := range out {
		sector := abi.SectorNumber(o.sector)
		c := fixed
		if c == nil {
			sector += abi.SectorNumber(i)
			if c, err = porep.SyntheticC1(ctx, spt, abi.ActorID(o.miner), sector, sha256.Sum256([]byte("c2prove synthetic sector"))); err != nil {
				return nil, err
			}
		}
		env, err := porep.EncodeCommit2In(c, sector)
		if err != nil {
			return nil, err
		}
		size, _ := c.RegisteredProof.SectorSize()
		out[i] = &pb.SubmitProofRequest{RequestId: fmt.Sprintf("porep-%d-%d-%d", o.miner, sector, i), ProofKind: pb.ProofKind_POREP_SEAL_COMMIT,
			SectorSize: uint64(size), RegisteredProof: uint64(c.RegisteredProof), Priority: prio, VanillaProof: env,
			SectorNumber: uint64(sector), MinerId: o.miner}
	}
	return out, nil
}

// snapRequests are synthetic sector updates' submits, as Curio's
// ProveUpdateCuzk fills them.
func snapRequests(_ context.Context, o *options, prio pb.Priority) ([]*pb.SubmitProofRequest, error) {
	t, err := update.ProofForSectorSize(o.sectorSize)
	if err != nil {
		return nil, cli.Usagef("-sector-size: %w", err)
	}
	p, err := update.ParamsFor(t)
	if err != nil {
		return nil, err
	}
	out := make([]*pb.SubmitProofRequest, o.count)
	for i := range out {
		sector := o.sector + uint64(i)
		s, err := update.NewSynthetic(p, sector)
		if err != nil {
			return nil, err
		}
		r := &pb.SubmitProofRequest{RequestId: fmt.Sprintf("snap-%d-%d-%d", o.miner, sector, i), ProofKind: pb.ProofKind_SNAP_DEALS_UPDATE,
			SectorSize: p.SectorSize, RegisteredProof: uint64(t), Priority: prio, SectorNumber: sector, MinerId: o.miner,
			VanillaProofs: update.EncodeVanillaProofs(s.Proofs)}
		if r.CommROld, err = commitment(s.CommROld, o.commitments, commcid.ReplicaCommitmentV1ToCID); err != nil {
			return nil, err
		}
		if r.CommRNew, err = commitment(s.CommRNew, o.commitments, commcid.ReplicaCommitmentV1ToCID); err != nil {
			return nil, err
		}
		if r.CommDNew, err = commitment(s.CommDNew, o.commitments, commcid.DataCommitmentV1ToCID); err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// commitment is e as sent: its 32 little-endian bytes (a CID's digest), or
// the binary CID toCID makes of them.
func commitment(e fr.Element, form string, toCID func([]byte) (cid.Cid, error)) ([]byte, error) {
	b := update.CommitmentBytes(e)
	if form == "raw" {
		return b[:], nil
	}
	c, err := toCID(b[:])
	if err != nil {
		return nil, err
	}
	return c.Bytes(), nil
}

// prove submits every request at once, awaits them and prints the timings.
func prove(ctx context.Context, client pb.ProvingEngineClient, reqs []*pb.SubmitProofRequest, w io.Writer) error {
	start := time.Now()
	type outcome struct {
		send, done time.Duration
		r          *pb.AwaitProofResponse
		err        error
	}
	outs := make([]outcome, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			s, err := client.SubmitProof(ctx, req)
			outs[i].send = time.Since(t0)
			if err != nil {
				outs[i].err = err
				return
			}
			outs[i].r, outs[i].err = client.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: s.GetJobId()})
			outs[i].done = time.Since(start)
		}()
	}
	wg.Wait()
	var first, last time.Duration
	failed := 0
	for i, o := range outs {
		switch {
		case o.err != nil:
			failed++
			fmt.Fprintf(w, "proof %d: %v\n", i+1, o.err)
			continue
		case o.r.GetStatus() != pb.AwaitProofResponse_COMPLETED:
			failed++
			fmt.Fprintf(w, "proof %d: %v %s\n", i+1, o.r.GetStatus(), o.r.GetErrorMessage())
			continue
		}
		r := o.r
		fmt.Fprintf(w, "proof %d (%s, sector %d): %d bytes sent in %.3f s; done at %.1f s; daemon: total %.1f s = queue_wait %.1f, srs_load %.1f, synthesis %.1f, prove %.1f (partition sums); %d bytes\n",
			i+1, reqs[i].GetProofKind(), reqs[i].GetSectorNumber(), inputBytes(reqs[i]), o.send.Seconds(), o.done.Seconds(), secs(r.GetTotalMs()),
			secs(r.GetQueueWaitMs()), secs(r.GetSrsLoadMs()), secs(r.GetSynthesisMs()), secs(r.GetGpuComputeMs()), len(r.GetProof()))
		if first == 0 || o.done < first {
			first = o.done
		}
		last = max(last, o.done)
	}
	fmt.Fprintf(w, "summary: %d of %d proofs completed (self-verified by the daemon) in %.1f s\n", len(reqs)-failed, len(reqs), time.Since(start).Seconds())
	if n := len(reqs) - failed; n > 1 {
		fmt.Fprintf(w, "  latency of the first proof: %.1f s\n  steady state: %.2f s per proof (first done → last done, over %d)\n",
			first.Seconds(), (last-first).Seconds()/float64(n-1), n-1)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d proofs failed", failed, len(reqs))
	}
	return nil
}

// inputBytes are the vanilla proof bytes req sends.
func inputBytes(req *pb.SubmitProofRequest) int {
	n := len(req.GetVanillaProof())
	for _, v := range req.GetVanillaProofs() {
		n += len(v)
	}
	return n
}

func secs(ms uint64) float64 { return float64(ms) / 1000 }
