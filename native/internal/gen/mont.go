package main

import (
	"fmt"
	"strings"
)

// Montgomery multiplication as a small program of PTX instructions, so that
// the same program is printed into ptx.cuh and run by a simulator in the
// tests.
//
// Layout: the running sum is T = E + 2^32·O, where E collects the products
// of the even limbs of a (and of p) and O those of the odd limbs. A chain
// over E then reads lo(a_0·b), hi(a_0·b), lo(a_2·b), hi(a_2·b), … into
// consecutive words, so the low and high halves of one product sit next to
// each other in one carry chain (ptxas fuses such pairs into one wide
// multiply-add), and the E and O chains are independent of each other.
// After a reduction step the low word of E is zero, and
// T/2^32 = (O + E_1) + 2^32·(E/2^64): the two swap roles (O becomes E as it
// is, E shifted down two words becomes O), and E_1, left over at weight 1,
// is added into the new E's low word at the head of the next odd chain,
// whose first multiply-add takes the carry. Shifting by whole word pairs
// keeps each product's two halves in the register pair ptxas wrote them to;
// a one-word shift of both made it copy every word at every step.

// opnd is a register (a C expression bound to an asm operand) or an
// immediate.
type opnd struct {
	reg string
	imm uint32
}

func reg(name string) opnd         { return opnd{reg: name} }
func imm(v uint32) opnd            { return opnd{imm: v} }
func (o opnd) isImm() bool         { return o.reg == "" }
func regf(f string, a ...any) opnd { return reg(fmt.Sprintf(f, a...)) }

// insn is one PTX instruction on u32 values: op is the opcode without the
// type suffix ("madc.hi.cc"); a and b are multiplied (mul, mad) or added
// (add), c is the addend of a mad.
type insn struct {
	op      string
	d       string
	a, b, c opnd
}

// step is either one asm statement (a carry chain: the carry flag never
// crosses statements) or C assignments run in order.
type step struct {
	chain  []insn
	assign [][2]string // dst, src ("0" for zero)
}

func mulInsn(op string, d string, a, b opnd) insn { return insn{op: op, d: d, a: a, b: b} }

func madInsn(op string, d string, a, b, c opnd) insn { return insn{op: op, d: d, a: a, b: b, c: c} }

// montMulProgram returns the program computing, from a[0..n-1] and
// bb[0..n-1] (Montgomery forms below p), words r0..r(n-1) of a value below
// 2p congruent to a·b·2^(-32n). n must be even. inv is -p^-1 mod 2^32.
func montMulProgram(p []uint32, inv uint32) []step {
	n := len(p)
	// E and O name the registers of the two accumulators, word 0 first; the
	// names move between them from step to step (see the shift below).
	E := make([]string, n+1)
	O := make([]string, n+1)
	for k := range E {
		E[k] = fmt.Sprintf("e%d", k)
		O[k] = fmt.Sprintf("o%d", k)
	}
	at := func(acc []string) func(int) string { return func(k int) string { return acc[k] } }
	a := func(j int) opnd { return regf("a[%d]", j) }
	var prog []step

	// products adds x(j)·y(j) for the limbs j = first, first+2, … into acc,
	// low half at word j-first, high half at word j-first+1, carry into
	// word n; head, if any, opens the chain and leaves its carry to it.
	products := func(acc func(int) string, first int, x, y func(int) opnd, head *insn) []insn {
		var c []insn
		if head != nil {
			c = append(c, *head)
		}
		for j := first; j < n; j += 2 {
			w := j - first
			lo := "madc.lo.cc"
			if len(c) == 0 {
				lo = "mad.lo.cc"
			}
			c = append(c, madInsn(lo, acc(w), x(j), y(j), reg(acc(w))))
			c = append(c, madInsn("madc.hi.cc", acc(w+1), x(j), y(j), reg(acc(w+1))))
		}
		return append(c, insn{op: "addc", d: acc(n), a: reg(acc(n)), b: imm(0)})
	}
	m := func(int) opnd { return reg("m") }
	pj := func(j int) opnd { return imm(p[j]) }
	// reduce adds m·p with m = -T·p^-1 mod 2^32, making E's low word zero.
	reduce := func() {
		prog = append(prog, step{chain: []insn{mulInsn("mul.lo", "m", reg(E[0]), imm(inv))}})
		prog = append(prog, step{chain: products(at(E), 0, m, pj, nil)})
		prog = append(prog, step{chain: products(at(O), 1, m, pj, nil)})
	}

	// First word of b: plain products, no carries (the halves do not overlap).
	for _, first := range []int{0, 1} {
		acc := E
		if first == 1 {
			acc = O
		}
		var c []insn
		for j := first; j < n; j += 2 {
			w := j - first
			c = append(c, mulInsn("mul.lo", acc[w], a(j), reg("bb[0]")))
			c = append(c, mulInsn("mul.hi", acc[w+1], a(j), reg("bb[0]")))
		}
		prog = append(prog, step{chain: c})
	}
	prog = append(prog, step{assign: [][2]string{{E[n], "0"}, {O[n], "0"}}})
	reduce()

	for i := 1; i < n; i++ {
		// T/2^32 = (O + E_1) + 2^32·(E/2^64): O becomes the even
		// accumulator as it is, E_1 is kept aside to be added into its low
		// word, and E shifted down two words becomes the odd one. Words move
		// by whole register pairs, so the low and high halves written by
		// one wide multiply-add are read as one pair again: no moves.
		E, O = O, append(append([]string{}, E[2:]...), E[0], E[1])
		prog = append(prog, step{assign: [][2]string{{"y", O[n]}, {O[n-1], "0"}, {O[n], "0"}}})
		bi := regf("bb[%d]", i)
		head := insn{op: "add.cc", d: E[0], a: reg(E[0]), b: reg("y")}
		b := func(int) opnd { return bi }
		prog = append(prog, step{chain: products(at(O), 1, a, b, &head)})
		prog = append(prog, step{chain: products(at(E), 0, a, b, nil)})
		reduce()
	}

	// Result: E/2^32 + O, below 2p < 2^(32n).
	var c []insn
	for k := 0; k < n; k++ {
		op := "addc.cc"
		switch k {
		case 0:
			op = "add.cc"
		case n - 1:
			op = "addc"
		}
		c = append(c, insn{op: op, d: fmt.Sprintf("r%d", k), a: reg(E[k+1]), b: reg(O[k])})
	}
	return append(prog, step{chain: c})
}

// emitMontMul prints prog as a device function name(r, a, bb) that ends
// with reduceName's final subtraction.
func emitMontMul(b *strings.Builder, name, reduceName string, prog []step, n int) {
	fmt.Fprintf(b, "__device__ __forceinline__ void %s(uint32_t* r, const uint32_t* a, const uint32_t* bb) {\n", name)
	var decl []string
	for _, x := range []string{"e", "o"} {
		for k := 0; k <= n; k++ {
			decl = append(decl, fmt.Sprintf("%s%d", x, k))
		}
	}
	for k := 0; k < n; k++ {
		decl = append(decl, fmt.Sprintf("r%d", k))
	}
	decl = append(decl, "m", "y")
	fmt.Fprintf(b, "  uint32_t %s;\n", strings.Join(decl, ", "))
	for _, s := range prog {
		if s.chain == nil {
			var as []string
			for _, x := range s.assign {
				as = append(as, fmt.Sprintf("%s = %s;", x[0], x[1]))
			}
			fmt.Fprintf(b, "  %s\n", strings.Join(as, " "))
			continue
		}
		emitChain(b, s.chain)
	}
	var rs []string
	for k := 0; k < n; k++ {
		rs = append(rs, fmt.Sprintf("r%d", k))
	}
	fmt.Fprintf(b, "  const uint32_t t[%d] = {%s};\n  %s(r, t);\n}\n\n", n, strings.Join(rs, ", "), reduceName)
}

// emitChain prints one asm statement. A register written before it is read
// is an output ("=r"), one read first and written later is "+r", one only
// read is an input.
func emitChain(b *strings.Builder, chain []insn) {
	type use struct{ read, written, writtenFirst bool }
	uses := map[string]*use{}
	var order []string
	see := func(name string) *use {
		u := uses[name]
		if u == nil {
			u = &use{}
			uses[name] = u
			order = append(order, name)
		}
		return u
	}
	for _, in := range chain {
		for _, x := range []opnd{in.a, in.b, in.c} {
			if x.reg != "" {
				u := see(x.reg)
				if !u.written {
					u.read = true
				}
			}
		}
		u := see(in.d)
		if !u.written && !u.read {
			u.writtenFirst = true
		}
		u.written = true
	}
	idx := map[string]int{}
	var outs, ins []string
	for _, name := range order {
		if u := uses[name]; u.written {
			idx[name] = len(outs)
			c := "+r"
			if u.writtenFirst {
				c = "=r"
			}
			outs = append(outs, fmt.Sprintf("\"%s\"(%s)", c, name))
		}
	}
	for _, name := range order {
		if u := uses[name]; !u.written {
			idx[name] = len(outs) + len(ins)
			ins = append(ins, fmt.Sprintf("\"r\"(%s)", name))
		}
	}
	arg := func(x opnd) string {
		if x.isImm() {
			return fmt.Sprintf("0x%08x", x.imm)
		}
		return fmt.Sprintf("%%%d", idx[x.reg])
	}
	var text []string
	for _, in := range chain {
		args := []string{fmt.Sprintf("%%%d", idx[in.d]), arg(in.a), arg(in.b)}
		if strings.HasPrefix(in.op, "mad") {
			args = append(args, arg(in.c))
		}
		text = append(text, fmt.Sprintf("%s.u32 %s;", in.op, strings.Join(args, ", ")))
	}
	fmt.Fprintf(b, "  asm(\"%s\"\n      : %s", strings.Join(text, "\\n\\t"), strings.Join(outs, ", "))
	if len(ins) > 0 {
		fmt.Fprintf(b, "\n      : %s", strings.Join(ins, ", "))
	}
	b.WriteString(");\n")
}

// simulate runs prog on regs (which must hold the inputs), with PTX's
// semantics of the u32 instructions it uses. It fails on an instruction
// that reads the carry flag before any instruction of its chain set it.
func simulate(prog []step, regs map[string]uint32) error {
	get := func(x opnd) uint64 {
		if x.isImm() {
			return uint64(x.imm)
		}
		return uint64(regs[x.reg])
	}
	for _, s := range prog {
		for _, x := range s.assign {
			if x[1] == "0" {
				regs[x[0]] = 0
			} else {
				regs[x[0]] = regs[x[1]]
			}
		}
		var cf uint64
		cfSet := false
		for _, in := range s.chain {
			op := in.op
			var carryIn uint64
			if strings.HasPrefix(op, "madc") || strings.HasPrefix(op, "addc") {
				if !cfSet {
					return fmt.Errorf("%s %s reads a carry no instruction of its chain set", op, in.d)
				}
				carryIn = cf
			}
			var v uint64
			switch {
			case strings.HasPrefix(op, "mul.lo"):
				v = (get(in.a) * get(in.b)) & 0xffffffff
			case strings.HasPrefix(op, "mul.hi"):
				v = (get(in.a) * get(in.b)) >> 32
			case strings.HasPrefix(op, "mad.lo"), strings.HasPrefix(op, "madc.lo"):
				v = (get(in.a)*get(in.b))&0xffffffff + get(in.c) + carryIn
			case strings.HasPrefix(op, "mad.hi"), strings.HasPrefix(op, "madc.hi"):
				v = (get(in.a)*get(in.b))>>32 + get(in.c) + carryIn
			case strings.HasPrefix(op, "add"):
				v = get(in.a) + get(in.b) + carryIn
			default:
				return fmt.Errorf("simulate: unknown op %q", op)
			}
			regs[in.d] = uint32(v)
			if strings.HasSuffix(op, ".cc") {
				cf, cfSet = v>>32, true
			}
		}
	}
	return nil
}
