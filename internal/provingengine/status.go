package provingengine

import (
	"context"
	"errors"
	"os"
	"slices"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/internal/provingengine/cuzkv1"
)

// GetStatus reports the GPUs, the circuits' parameters, the queue of each
// kind served, the totals and the pinned host memory.
func (s *Server) GetStatus(ctx context.Context, _ *pb.GetStatusRequest) (*pb.GetStatusResponse, error) {
	st := s.prover.Status()
	out := &pb.GetStatusResponse{
		UptimeSeconds:     uint64(time.Since(s.since).Seconds()),
		PinnedMemoryBytes: uint64(max(0, st.PinnedHostBytes)),
		// gpuc2 sets no limit of its own on pinned memory: 0.
	}
	out.TotalProofsCompleted, out.TotalProofsFailed = s.metrics.totals()
	for _, d := range st.Devices {
		g := &pb.GPUStatus{Ordinal: uint32(d.Ordinal), Name: d.Name, VramTotalBytes: uint64(max(0, d.TotalBytes)),
			VramFreeBytes: uint64(max(0, d.Gate.BudgetBytes-d.Gate.ReservedBytes))}
		for _, label := range d.Proving {
			if label != "" {
				g.CurrentJobId, g.CurrentProofKind = label, pb.ProofKind_POREP_SEAL_COMMIT.String()
				break
			}
		}
		out.Gpus = append(out.Gpus, g)
	}
	out.LoadedSrs = s.srsStatus(st.Keys)
	pending, running := s.queue(st)
	out.Queues = []*pb.QueueStatus{{ProofKind: pb.ProofKind_POREP_SEAL_COMMIT.String(), Pending: pending, InProgress: running}}
	return out, nil
}

// queue counts the unfinished jobs: pending (parsing, loading parameters,
// or every partition still queued) and in progress (a partition past the
// queue).
func (s *Server) queue(st gpuc2.Status) (pending, running uint32) {
	started := startedJobs(st)
	for _, j := range s.jobs.unfinished() {
		if started[j.id] {
			running++
		} else {
			pending++
		}
	}
	return pending, running
}

// srsStatus lists each circuit whose parameters are loaded (HOT on the
// GPUs or pinned, WARM mapped on the host) or on disk (COLD).
func (s *Server) srsStatus(keys []gpuc2.KeyStatus) []*pb.SRSStatus {
	var out []*pb.SRSStatus
	for _, c := range circuits {
		if k, ok := keyOf(keys, c); ok {
			tier := pb.SRSStatus_WARM
			if k.Tier == gpuc2.KeyOnDevice || k.Tier == gpuc2.KeyPinned {
				tier = pb.SRSStatus_HOT
			}
			out = append(out, &pb.SRSStatus{CircuitId: c.id, Tier: tier, SizeBytes: uint64(k.Bytes), RefCount: uint32(k.InUse)})
			continue
		}
		if size, ok := s.onDisk(c); ok {
			out = append(out, &pb.SRSStatus{CircuitId: c.id, Tier: pb.SRSStatus_COLD, SizeBytes: uint64(size)})
		}
	}
	return out
}

// keyOf returns the loaded key of c's sector size.
func keyOf(keys []gpuc2.KeyStatus, c circuit) (gpuc2.KeyStatus, bool) {
	for _, k := range keys {
		if slices.ContainsFunc(k.Types, func(t abi.RegisteredSealProof) bool { cc, ok := circuitOf(t); return ok && cc.id == c.id }) {
			return k, true
		}
	}
	return gpuc2.KeyStatus{}, false
}

// onDisk finds c's parameter file where the Prover would load it: the
// real one, else a TEST-ONLY setup.
func (s *Server) onDisk(c circuit) (int64, bool) {
	if params, _, err := gpuc2.FindParams(s.cfg.ParamsDir, c.proof); err == nil {
		if fi, err := os.Stat(params); err == nil {
			return fi.Size(), true
		}
	}
	if s.cfg.TestParamsDir != "" {
		if fi, err := os.Stat(gpuc2.TestParamsPath(s.cfg.TestParamsDir, c.proof)); err == nil {
			return fi.Size(), true
		}
	}
	return 0, false
}

// PreloadSRS loads a circuit's parameters (onto the GPUs where they fit).
func (s *Server) PreloadSRS(ctx context.Context, req *pb.PreloadSrsRequest) (*pb.PreloadSrsResponse, error) {
	c, err := circuitByID(req.GetCircuitId())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	_, already := keyOf(s.prover.Status().Keys, c)
	start := time.Now()
	if err := s.prover.Preload(ctx, c.proof); err != nil {
		return nil, status.Errorf(code(err), "preload %s: %v", c.id, err)
	}
	loadMs := ms(time.Since(start))
	s.log.Info("gpuc2d: parameters preloaded", "circuit", c.id, "already_loaded", already, "ms", loadMs)
	return &pb.PreloadSrsResponse{AlreadyLoaded: already, LoadTimeMs: loadMs}, nil
}

// EvictSRS releases a circuit's parameters.
func (s *Server) EvictSRS(ctx context.Context, req *pb.EvictSrsRequest) (*pb.EvictSrsResponse, error) {
	c, err := circuitByID(req.GetCircuitId())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	k, loaded := keyOf(s.prover.Status().Keys, c)
	if !loaded {
		return &pb.EvictSrsResponse{}, nil
	}
	if err := s.prover.Evict(c.proof); err != nil {
		return nil, status.Errorf(code(err), "evict %s: %v", c.id, err)
	}
	s.log.Info("gpuc2d: parameters evicted", "circuit", c.id, "bytes", k.Bytes)
	return &pb.EvictSrsResponse{WasLoaded: true, FreedBytes: uint64(k.Bytes)}, nil
}

// code is the gRPC status of a facade error.
func code(err error) codes.Code {
	switch {
	case errors.Is(err, gpuc2.ErrBadInput):
		return codes.InvalidArgument
	case errors.Is(err, gpuc2.ErrParamsMissing):
		return codes.FailedPrecondition
	case errors.Is(err, gpuc2.ErrOutOfDeviceMemory), errors.Is(err, gpuc2.ErrBudget):
		return codes.ResourceExhausted
	case errors.Is(err, gpuc2.ErrClosed):
		return codes.Unavailable
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	}
	return codes.Internal
}
