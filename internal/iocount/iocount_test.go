package iocount_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuc2/gpuc2/internal/iocount"
)

type shortWriter struct{ room int }

func (s *shortWriter) Write(p []byte) (int, error) {
	if len(p) > s.room {
		n := s.room
		s.room = 0
		return n, errors.New("full")
	}
	s.room -= len(p)
	return len(p), nil
}

// The count is what the underlying writer took, a short write included.
func TestWriterCounts(t *testing.T) {
	var buf bytes.Buffer
	w := &iocount.Writer{W: &buf}
	_, _ = w.Write([]byte("abc"))
	_, _ = w.Write([]byte("de"))
	assert.Equal(t, int64(5), w.N)
	short := &iocount.Writer{W: &shortWriter{room: 4}}
	_, _ = short.Write([]byte("ab"))
	n, err := short.Write([]byte("cdef"))
	assert.Error(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, int64(4), short.N)
}
