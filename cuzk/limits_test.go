package cuzk_test

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/cuzk"
	pb "github.com/gpuc2/gpuc2/cuzk/cuzkv1"
)

// A client that opens calls and never grants flow-control window (so no
// answer can be sent) has at most MaxStreamsPerConnection of them served on
// its connection: the rest are refused (RST_STREAM REFUSED_STREAM), so the
// answers it makes the daemon hold stay bounded. The server announces the
// limits in its SETTINGS.
func TestStreamsPerConnectionBounded(t *testing.T) {
	prover, err := gpuc2.New(context.Background(), gpuc2.Config{Backend: gpuc2.BackendCPU, ParamsDir: t.TempDir()})
	require.NoError(t, err)
	defer prover.Close()
	srv, err := cuzk.New(cuzk.Config{Prover: prover})
	require.NoError(t, err)
	defer srv.Shutdown(context.Background())
	g := grpc.NewServer(cuzk.ServerOptions()...)
	srv.Register(g)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go g.Serve(lis)
	defer g.Stop()

	c, err := net.Dial("tcp", lis.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = c.Write([]byte(http2.ClientPreface))
	require.NoError(t, err)
	w := http2.NewFramer(c, nil)
	require.NoError(t, w.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})) // no window for any answer

	// Read every frame the server sends: its settings, the answers'
	// headers (not flow-controlled) and the refusals.
	type tally struct {
		settings         map[http2.SettingID]uint32
		headers, refused int
	}
	seen := make(chan tally, 1)
	const extra = 16
	n := cuzk.MaxStreamsPerConnection + extra
	go func() {
		r := http2.NewFramer(nil, c)
		got := tally{settings: map[http2.SettingID]uint32{}}
		defer func() { seen <- got }()
		for got.headers+got.refused < n {
			f, err := r.ReadFrame()
			if err != nil {
				t.Logf("after %d answers' headers and %d refusals: %v", got.headers, got.refused, err)
				return
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if !f.IsAck() {
					_ = f.ForeachSetting(func(s http2.Setting) error { got.settings[s.ID] = s.Val; return nil })
				}
			case *http2.HeadersFrame:
				got.headers++
			case *http2.RSTStreamFrame:
				if f.ErrCode == http2.ErrCodeRefusedStream {
					got.refused++
				}
			case *http2.DataFrame:
				t.Errorf("stream %d: %d bytes of data sent without window", f.StreamID, len(f.Data()))
			}
		}
	}()

	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for i := range n {
		id := uint32(2*i + 1)
		block.Reset()
		for _, h := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":authority", "gpuc2d"},
			{":path", pb.ProvingEngine_GetMetrics_FullMethodName}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
			require.NoError(t, enc.WriteField(hpack.HeaderField{Name: h[0], Value: h[1]}))
		}
		require.NoError(t, w.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block.Bytes(), EndHeaders: true}))
		require.NoError(t, w.WriteData(id, true, []byte{0, 0, 0, 0, 0})) // an empty GetMetricsRequest
	}
	got := <-seen
	assert.Equal(t, uint32(cuzk.MaxStreamsPerConnection), got.settings[http2.SettingMaxConcurrentStreams], "announced")
	assert.Equal(t, uint32(cuzk.MaxHeaderBytes), got.settings[http2.SettingMaxHeaderListSize], "announced")
	assert.Equal(t, cuzk.MaxStreamsPerConnection, got.headers, "calls served and held, their answers unsent")
	assert.Equal(t, extra, got.refused, "calls beyond the limit refused")
}
