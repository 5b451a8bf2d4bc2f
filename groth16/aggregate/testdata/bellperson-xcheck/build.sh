#!/usr/bin/env bash
# Builds the bellperson cross-check harness for TestBellpersonKnownAnswers:
# a Rust program that runs bellperson's own aggregate_proofs and
# verify_aggregate_proof on the files the Go test writes
# (GPUC2_SNARKPACK_XCHECK=dir go test -run TestBellpersonKnownAnswers) and
# says whether its aggregates equal gpuc2's byte for byte.
#
#   build.sh WORKDIR BELLPERSON BLSTRS BLST FF GROUP PAIRING
#   WORKDIR/harness/target/release/xcheck DIR; ... xcheck DIR/64
#
# The six arguments after WORKDIR are git directories of those projects
# (filecoin-project/bellperson, filecoin-project/blstrs,
# supranational/blst, zkcrypto/ff, zkcrypto/group, zkcrypto/pairing); the
# commits below are exported from them into WORKDIR, none of their files is
# kept in this repository. Only bellperson's aggregate module and
# multiscalar.rs are used, with src/groth16/mod.rs and bellpepper-core
# here standing in for the rest of the crate. It builds offline against
# Debian's Rust packages (the other crates' sources), as root:
#
#   apt-get install librust-{rand-xorshift,threadpool,zeroize,zeroize-derive,byte-slice-cast,cc,glob,bincode,rand,rand-chacha,rand-core,sha2,rayon,crossbeam-channel,serde,serde-derive,log,num-cpus,subtle,byteorder,digest,memmap2}-dev
#
# Debian has no bitvec, so ff is built without its "bits" feature, and
# with it go blstrs' PrimeFieldBits impl and bellperson's setup_fake_srs
# and msm module (only the fake SRS generator uses them). blstrs' zeroize
# requirement is lowered to Debian's 1.5. Nothing else is changed.
set -euo pipefail
[ $# -eq 7 ] || { sed -n '2,12p' "$0"; exit 2; }
work=$1
here=$(cd "$(dirname "$0")" && pwd)
export_at() { # git dir, commit, destination
	mkdir -p "$3"
	git -C "$1" archive "$2" | tar -x -C "$3"
}
export_at "$2" d1fa22cbed33ca5281a3c52ed8c91af5af64f3e3 "$work/bellperson"
export_at "$3" 6646be1fdf596a51dc68c746a1efb7e199b10865 "$work/vendor/blstrs"
export_at "$4" dece82ea537b422890888bacde4034ca5b5a44d8 "$work/vendor/blst"
export_at "$5" 41fb01b8990909b8b1b44d4601556694c473bc16 "$work/vendor/ff"
export_at "$6" 1d32e5f9df4e94b9b967013fa1e598f639d6c4ca "$work/vendor/group"
export_at "$7" 5fe4b060bd97f2af6e0c5339509bf93e44f4da84 "$work/vendor/pairing"

mkdir -p "$work/harness/src/groth16/aggregate" "$work/harness/.cargo" "$work/vendor/bellpepper-core"
cp -r "$here/src" "$here/Cargo.toml" "$work/harness/"
cp -r "$here/bellpepper-core/." "$work/vendor/bellpepper-core/"
for f in accumulator commit inner_product macros mod poly proof prove srs transcript verify; do
	cp "$work/bellperson/src/groth16/aggregate/$f.rs" "$work/harness/src/groth16/aggregate/"
done
cp "$work/bellperson/src/groth16/multiscalar.rs" "$work/harness/src/groth16/"
cat > "$work/harness/.cargo/config.toml" <<'CFG'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
CFG

python3 - "$work" <<'PY'
import sys
w = sys.argv[1]
def edit(path, f):
    p = w + '/' + path
    s = open(p).read()
    t = f(s)
    assert t != s, path
    open(p, 'w').write(t)
def cut(s, start, end):
    i = s.index(start)
    return s[:i] + s[s.index(end, i):]
def drop_block(s, start):
    i = s.index(start); k = s.index('{', i); d = 0
    while True:
        d += {'{': 1, '}': -1}.get(s[k], 0)
        if d == 0:
            return s[:i] + s[k + 1:]
        k += 1
def blstrs_toml(s):
    for a, b in [
        ('blst = { version = "0.3.10", default-features = true }', 'blst = { path = "../blst/bindings/rust" }'),
        ('ff = "0.13"', 'ff = { path = "../ff", default-features = false, features = ["std"] }'),
        ('group = { version = "0.13", features = ["tests"] }', 'group = { path = "../group", features = ["tests"] }'),
        ('pairing_lib = { version = "0.23", package = "pairing" }', 'pairing_lib = { path = "../pairing", package = "pairing" }'),
        ('zeroize = "1.8.2"', 'zeroize = "1.5"'),
    ]:
        assert a in s, a
        s = s.replace(a, b)
    return cut(s, '[dev-dependencies]', '[features]')
edit('vendor/blstrs/Cargo.toml', blstrs_toml)
edit('vendor/blstrs/src/scalar.rs', lambda s: drop_block(
    s.replace('use ff::{Field, FieldBits, PrimeField, PrimeFieldBits};', 'use ff::{Field, PrimeField};'),
    'impl PrimeFieldBits for Scalar'))
edit('vendor/group/Cargo.toml', lambda s: s.replace('ff = { version = "0.13"', 'ff = { path = "../ff"'))
edit('vendor/pairing/Cargo.toml', lambda s: s.replace('group = { version = "0.13"', 'group = { path = "../group"'))
edit('vendor/blst/bindings/rust/Cargo.toml', lambda s: cut(s, '[dev-dependencies]', '[[bench]]'))
edit('harness/src/groth16/aggregate/srs.rs', lambda s: cut(
    s.replace('use super::msm;\n', '').replace('use ff::{Field, PrimeField, PrimeFieldBits};', 'use ff::{Field, PrimeField};'),
    'pub fn setup_fake_srs', 'fn write_vec'))
edit('harness/src/groth16/aggregate/mod.rs', lambda s: s.replace('mod msm;\n', ''))
PY
cd "$work/harness" && cargo build --release
