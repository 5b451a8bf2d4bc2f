package main

import "testing"

// The CPU path runs everywhere; bad flags are refused with an error.
func TestRun(t *testing.T) {
	if err := run(6, "g1", "both", 1, "bits", 0); err != nil {
		t.Fatal(err)
	}
	if err := run(5, "g2", "cpu", 1, "random", 0); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		log         int
		group, back string
		runs        int
		kind        string
	}{{0, "g1", "cpu", 1, "random"}, {6, "g3", "cpu", 1, "random"}, {6, "g1", "tpu", 1, "random"}, {6, "g1", "cpu", 1, "ternary"}, {6, "g1", "cpu", 0, "random"}} {
		if err := run(bad.log, bad.group, bad.back, bad.runs, bad.kind, 0); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
