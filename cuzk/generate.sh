#!/usr/bin/env bash
# Regenerates cuzkv1/ from proto/cuzk/v1/proving.proto with protoc (Debian's
# protobuf-compiler) and the Go plugins at the exact versions below, which
# are installed into a temporary GOBIN. With -check DIR it writes into DIR
# instead, for .ci/run to compare with the committed files.
set -euo pipefail
cd "$(dirname "$0")"
# Curio's generated files name these versions (lib/cuzk/*.pb.go, Curio e0294b0f).
PROTOC_GEN_GO=v1.36.11
PROTOC_GEN_GO_GRPC=v1.6.1
out=.
[ "${1:-}" = -check ] && out=$2
command -v protoc >/dev/null || { echo "generate.sh: protoc not found (apt-get install protobuf-compiler)" >&2; exit 3; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN=$bin GOFLAGS= go install google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO
GOBIN=$bin GOFLAGS= go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC
mkdir -p "$out/cuzkv1"
PATH=$bin:$PATH protoc -I proto \
	--go_out="$out/cuzkv1" --go_opt=paths=source_relative \
	--go-grpc_out="$out/cuzkv1" --go-grpc_opt=paths=source_relative \
	cuzk/v1/proving.proto
# paths=source_relative writes cuzk/v1/*.go: flatten into cuzkv1/.
mv "$out/cuzkv1/cuzk/v1/"*.go "$out/cuzkv1/"
rm -rf "$out/cuzkv1/cuzk"
