package main

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

type field struct {
	name string
	mod  *big.Int
	n    int
}

var fields = []field{{"fp", fp.Modulus(), 12}, {"fr", fr.Modulus(), 8}}

func (f field) program() []step {
	b32 := new(big.Int).Lsh(big.NewInt(1), 32)
	inv := new(big.Int).ModInverse(f.mod, b32)
	return montMulProgram(limbs32(f.mod, f.n), uint32(inv.Sub(b32, inv).Uint64()))
}

func (f field) random(rng *rand.Rand) *big.Int {
	x := new(big.Int)
	for range f.n {
		x.Lsh(x, 32).Or(x, big.NewInt(int64(rng.Uint32())))
	}
	return x.Mod(x, f.mod)
}

// checkMul runs prog on a and b in the simulator: the result must be below
// 2p and congruent to a·b·2^(-32n).
func (f field) checkMul(prog []step, a, b *big.Int) error {
	regs := map[string]uint32{}
	for j, w := range limbs32(a, f.n) {
		regs[fmt.Sprintf("a[%d]", j)] = w
	}
	for j, w := range limbs32(b, f.n) {
		regs[fmt.Sprintf("bb[%d]", j)] = w
	}
	if err := simulate(prog, regs); err != nil {
		return err
	}
	got := new(big.Int)
	for k := f.n - 1; k >= 0; k-- {
		got.Lsh(got, 32).Or(got, big.NewInt(int64(regs[fmt.Sprintf("r%d", k)])))
	}
	rInv := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), uint(32*f.n)), f.mod)
	want := new(big.Int).Mul(a, b)
	want.Mul(want, rInv).Mod(want, f.mod)
	if got.Cmp(new(big.Int).Lsh(f.mod, 1)) >= 0 || new(big.Int).Mod(got, f.mod).Cmp(want) != 0 {
		return fmt.Errorf("a=%x b=%x: got %x, want %x (mod p, below 2p)", a, b, got, want)
	}
	return nil
}

// TestMontMulProgram runs the printed multiplication program in the PTX
// simulator against big.Int on edge values and random ones.
func TestMontMulProgram(t *testing.T) {
	for _, f := range fields {
		t.Run(f.name, func(t *testing.T) {
			prog := f.program()
			pm1 := new(big.Int).Sub(f.mod, big.NewInt(1))
			edges := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), pm1, new(big.Int).Sub(f.mod, big.NewInt(2)),
				new(big.Int).Rsh(f.mod, 1), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(32*f.n-8)), big.NewInt(1))}
			for _, a := range edges {
				for _, b := range edges {
					if err := f.checkMul(prog, a, b); err != nil {
						t.Fatal(err)
					}
				}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 20000 {
				if err := f.checkMul(prog, f.random(rng), f.random(rng)); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestMontMulCheckFails: the check catches a program with one instruction
// missing, and the simulator refuses a chain that reads an unset carry.
func TestMontMulCheckFails(t *testing.T) {
	bad := []step{{chain: []insn{{op: "addc.cc", d: "x", a: reg("x"), b: imm(1)}}}}
	if err := simulate(bad, map[string]uint32{}); err == nil {
		t.Fatal("a chain opening with addc was accepted")
	}
	f := fields[1]
	rng := rand.New(rand.NewPCG(3, 4))
	long := 0 // chains of more than 4 instructions
	for _, s := range f.program() {
		if len(s.chain) > 4 {
			long++
		}
	}
	for _, drop := range []int{0, 3, long / 2, long - 1} { // that chain loses its 3rd instruction
		prog := f.program()
		seen := 0
		for i, s := range prog {
			if len(s.chain) > 4 {
				if seen == drop {
					prog[i].chain = append(append([]insn{}, s.chain[:2]...), s.chain[3:]...)
					break
				}
				seen++
			}
		}
		failed := false
		for range 100 {
			failed = failed || f.checkMul(prog, f.random(rng), f.random(rng)) != nil
		}
		if !failed {
			t.Errorf("dropping an instruction of chain %d went unnoticed", drop)
		}
	}
}

// TestHeadersUpToDate: the committed headers are what the generator prints.
func TestHeadersUpToDate(t *testing.T) {
	for file, want := range map[string]string{"../../cuda/constants.cuh": header(), "../../cuda/ptx.cuh": ptxHeader()} {
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: run go generate ./native", file)
		}
	}
}
