package provingengine_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"

	pb "github.com/gpuc2/gpuc2/internal/provingengine/cuzkv1"
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
