package cuzk

import (
	"context"
	"errors"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/gpuc2/gpuc2"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// BackendHeader is the response header of GetStatus that names the backend
// (cpu or cuda): the response, Curio's message, has no field for it.
const BackendHeader = "gpuc2-backend"

// GetStatus reports the GPUs, the circuits' parameters, the queue of each
// kind served, the totals and the pinned host memory; the backend in the
// BackendHeader header.
func (s *Server) GetStatus(ctx context.Context, _ *pb.GetStatusRequest) (*pb.GetStatusResponse, error) {
	st := s.prover.Status()
	_ = grpc.SetHeader(ctx, metadata.Pairs(BackendHeader, string(st.Backend))) // fails only outside a gRPC call
	out := &pb.GetStatusResponse{
		UptimeSeconds:     uint64(time.Since(s.since).Seconds()),
		PinnedMemoryBytes: uint64(max(0, st.PinnedHostBytes)),
		// gpuc2 sets no limit of its own on pinned memory: 0.
	}
	out.TotalProofsCompleted, out.TotalProofsFailed = s.metrics.totals()
	for _, d := range st.Devices {
		g := &pb.GPUStatus{Ordinal: uint32(d.Ordinal), Name: d.Name, VramTotalBytes: uint64(max(0, d.TotalBytes)),
			VramFreeBytes: uint64(max(0, d.Gate.MemoryLimitBytes-d.Gate.ReservedBytes))}
		for _, label := range d.Proving {
			if j := s.jobs.get(label); j != nil {
				g.CurrentJobId, g.CurrentProofKind = label, j.kind.String()
				break
			}
		}
		out.Gpus = append(out.Gpus, g)
	}
	out.LoadedSrs = s.srsStatus(st.Keys)
	queues := s.queues(st)
	for _, kind := range servedKinds {
		q := queues[kind]
		out.Queues = append(out.Queues, &pb.QueueStatus{ProofKind: kind.String(), Pending: q.pending, InProgress: q.running})
	}
	return out, nil
}

// queueCounts are a kind's unfinished jobs: pending (parsing, loading
// parameters, or every partition still queued) and running (a partition
// past the queue).
type queueCounts struct{ pending, running uint32 }

// queues counts the unfinished jobs of each kind.
func (s *Server) queues(st gpuc2.Status) map[pb.ProofKind]queueCounts {
	started := startedJobs(st)
	out := map[pb.ProofKind]queueCounts{}
	for _, j := range s.jobs.unfinished() {
		q := out[j.kind]
		if started[j.id] {
			q.running++
		} else {
			q.pending++
		}
		out[j.kind] = q
	}
	return out
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

// keyOf returns c's loaded key.
func keyOf(keys []gpuc2.KeyStatus, c circuit) (gpuc2.KeyStatus, bool) {
	for _, k := range keys {
		if c.boundTo(k) {
			return k, true
		}
	}
	return gpuc2.KeyStatus{}, false
}

// onDisk finds c's parameter file where the Prover would load it: the
// real one, else a TEST-ONLY setup.
func (s *Server) onDisk(c circuit) (int64, bool) {
	real, test := c.paramsPaths(s.cfg.ParamsDir, s.cfg.TestParamsDir)
	for _, path := range []string{real, test} {
		if path == "" {
			continue
		}
		if fi, err := os.Stat(path); err == nil {
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
	if err := s.prover.PreloadCircuit(ctx, c.id); err != nil {
		return nil, status.Errorf(code(err), "preload %s: %v", c.id, err)
	}
	loadMs := ms(time.Since(start))
	s.log.Info("gpuc2d: parameters preloaded", "circuit", c.id, "already_loaded", already, "ms", loadMs)
	return &pb.PreloadSrsResponse{AlreadyLoaded: already, LoadTimeMs: loadMs}, nil
}

// EvictSRS releases a circuit's parameters. A key no proof holds is
// unloaded (off the GPUs, unmapped): was_loaded, freed_bytes its size. One
// a proof holds stays loaded (the facade only drops its decoded host
// copies, decoded again on demand, whose memory returns once the proofs
// holding them end): was_loaded, freed_bytes 0, GetStatus still lists it,
// and it stays loaded after those proofs end, until an EvictSRS once no
// proof holds it.
func (s *Server) EvictSRS(ctx context.Context, req *pb.EvictSrsRequest) (*pb.EvictSrsResponse, error) {
	c, err := circuitByID(req.GetCircuitId())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	k, loaded := keyOf(s.prover.Status().Keys, c)
	if !loaded {
		return &pb.EvictSrsResponse{}, nil
	}
	if err := s.prover.EvictCircuit(c.id); err != nil {
		return nil, status.Errorf(code(err), "evict %s: %v", c.id, err)
	}
	// What the facade did is read back, not assumed from the InUse read
	// before: a proof may have taken the key in between. (A key unloaded,
	// then loaded again at once by a new proof, reads as kept: freed_bytes
	// may say too little, never too much.)
	if still, ok := keyOf(s.prover.Status().Keys, c); ok {
		s.log.Info("gpuc2d: parameters in use, not evicted: they stay loaded (their decoded host copies dropped, "+
			"decoded again on demand); evict again once no proof holds them", "circuit", c.id, "proofs", still.InUse,
			"bytes", still.Bytes)
		return &pb.EvictSrsResponse{WasLoaded: true}, nil
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
	case errors.Is(err, gpuc2.ErrUnsupported):
		return codes.Unimplemented
	case errors.Is(err, gpuc2.ErrClosed):
		return codes.Unavailable
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	}
	return codes.Internal
}
