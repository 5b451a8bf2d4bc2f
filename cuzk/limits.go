package cuzk

import (
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// MaxMessageBytes is the gRPC message limit each way: Curio's client's.
const MaxMessageBytes = 256 << 20

// What one connection may hold of the daemon. Curio's client (lib/cuzk)
// keeps one connection per node and makes one Prove call per proof in
// flight, each open until its proof ends, at most [Cuzk] MaxPending of them
// (shared by its PoRep, SnapDeals and proof-share tasks), plus a GetStatus
// now and then. A call beyond the stream limit is refused with
// REFUSED_STREAM; grpc-go clients (Curio's) do not send one: they wait for
// a stream to end.
const (
	// MaxStreamsPerConnection bounds the calls one connection has open at
	// once: many times the proofs a node keeps in flight (MaxPending is
	// 8 to a few dozen), and what bounds the memory of a client that never
	// reads its answers: each call that cannot be sent holds its response
	// (GetMetrics' is tens of KB; 256 of them a few MB, where 40,000 held
	// 1.7 GiB with no limit) and its request (a C1 is tens of MB, at most
	// MaxMessageBytes; a proof in flight holds its own anyway).
	MaxStreamsPerConnection = 256
	// MaxHeaderBytes bounds a call's header list (uncompressed): Curio's
	// are a few hundred bytes; grpc-go's default is 16 MiB per call.
	MaxHeaderBytes = 64 << 10
	// keepaliveTime and keepaliveTimeout: a connection silent for
	// keepaliveTime is pinged, and closed (its calls cancelled, a Prove's
	// job with them) when no answer comes within keepaliveTimeout: a client
	// that stops reading cannot hold its calls' memory for long.
	keepaliveTime    = 2 * time.Minute
	keepaliveTimeout = 20 * time.Second
	// keepaliveMinTime is the most often a client may ping: a client
	// configured for keepalive is served (grpc-go's clients ping at most
	// every 10 s); one pinging more often is sent GOAWAY.
	keepaliveMinTime = 10 * time.Second
)

// ServerOptions are the options a gRPC server for this service needs:
// Curio's message limits, and the per-connection limits above.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.MaxConcurrentStreams(MaxStreamsPerConnection),
		grpc.MaxHeaderListSize(MaxHeaderBytes),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveMinTime, PermitWithoutStream: true}),
	}
}
