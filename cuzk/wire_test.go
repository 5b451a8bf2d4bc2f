package cuzk_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/cuzk"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// curioDescriptor is the SHA-256 of the FileDescriptorProto of Curio's
// extern/cuzk/cuzk-proto/proto/cuzk/v1/proving.proto (Curio e0294b0f), as
// protoc 3.21.12 compiles it, its options and source info cleared, in
// protobuf's deterministic encoding: package, service, methods, messages,
// field names, numbers and types, enums. gpuc2's file must give the same,
// so that a client generated from Curio's file talks to gpuc2d unchanged.
const curioDescriptor = "87c4a5b0c0bbaf27a2f854e21cd4f18f391924da08b0e4a1dacd7a023899752b"

func TestWireCompatibleWithCurio(t *testing.T) {
	fd := protodesc.ToFileDescriptorProto(pb.File_cuzk_v1_proving_proto)
	assert.Equal(t, "cuzk/v1/proving.proto", fd.GetName())
	assert.Equal(t, "cuzk.v1", fd.GetPackage())
	fd.Options, fd.SourceCodeInfo = nil, nil
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(fd)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	assert.Equal(t, curioDescriptor, hex.EncodeToString(sum[:]),
		"the protocol's descriptor differs from Curio's: a name, number or type changed")
	assert.Equal(t, "/cuzk.v1.ProvingEngine/Prove", pb.ProvingEngine_Prove_FullMethodName)
}

// MetricsHandler serves the same metrics over HTTP for a scraper
// (gpuc2d -metrics-listen).
func TestMetricsOverHTTP(t *testing.T) {
	prover, err := gpuc2.New(context.Background(), gpuc2.Config{Backend: gpuc2.BackendCPU, ParamsDir: t.TempDir()})
	require.NoError(t, err)
	defer prover.Close()
	srv, err := cuzk.New(cuzk.Config{Prover: prover})
	require.NoError(t, err)
	defer srv.Shutdown(context.Background())
	hs := httptest.NewServer(srv.MetricsHandler())
	defer hs.Close()
	resp, err := http.Get(hs.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), "gpuc2d_uptime_seconds")
	assert.Contains(t, string(body), `gpuc2d_queue_jobs{kind="POREP_SEAL_COMMIT",state="pending"} 0`)
}
