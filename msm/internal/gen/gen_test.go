package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFilesUpToDate: the committed files are what the generator writes.
func TestFilesUpToDate(t *testing.T) {
	for _, g := range groups {
		want, err := generate(g)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("..", "..", fileName(g))
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./msm", file)
		}
	}
}
