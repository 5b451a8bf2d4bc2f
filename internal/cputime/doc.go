// Package cputime reads the process's CPU time, which a busy shared machine
// does not inflate as it does wall time: benchmarks and tests report work
// by it (a synthesis' core-seconds, a decode's).
package cputime
