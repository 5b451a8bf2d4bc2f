// Cross-check: bellperson's aggregate_proofs / verify_aggregate_proof on
// inputs written by gpuc2's Go tests (dir given as argv[1]).
use blstrs::{Bls12, G1Affine, G2Affine, Scalar};
use ff::PrimeField;
use harness::groth16::aggregate::{
    aggregate_proofs, verify_aggregate_proof, AggregateProof, AggregateVersion, GenericSRS,
};
use harness::groth16::{prepare, Proof};
use rand_core::SeedableRng;
use std::fs;
use std::path::Path;

fn g1(b: &[u8]) -> G1Affine {
    G1Affine::from_compressed(b.try_into().unwrap()).unwrap()
}
fn g2(b: &[u8]) -> G2Affine {
    G2Affine::from_compressed(b.try_into().unwrap()).unwrap()
}
fn u32le(b: &[u8]) -> usize {
    u32::from_le_bytes(b[..4].try_into().unwrap()) as usize
}

fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let dir = Path::new(&dir);
    let srs = GenericSRS::<Bls12>::read(&mut fs::File::open(dir.join("srs.bin")).unwrap()).unwrap();
    let pb = fs::read(dir.join("proofs.bin")).unwrap();
    let proofs: Vec<Proof<Bls12>> = pb
        .chunks(192)
        .map(|c| Proof { a: g1(&c[..48]), b: g2(&c[48..144]), c: g1(&c[144..]) })
        .collect();
    let vb = fs::read(dir.join("vk.bin")).unwrap();
    let nic = u32le(&vb[336..]);
    let ic: Vec<G1Affine> = (0..nic).map(|i| g1(&vb[340 + 48 * i..340 + 48 * (i + 1)])).collect();
    let pvk = prepare::<Bls12>(g1(&vb[..48]), g2(&vb[48..144]), g2(&vb[144..240]), g2(&vb[240..336]), ic);
    let ib = fs::read(dir.join("inputs.bin")).unwrap();
    let per = u32le(&ib);
    let inputs: Vec<Vec<Scalar>> = ib[4..]
        .chunks(32 * per)
        .map(|c| {
            c.chunks(32)
                .map(|s| Scalar::from_repr_vartime(s.try_into().unwrap()).unwrap())
                .collect()
        })
        .collect();
    let include = fs::read(dir.join("include.bin")).unwrap();
    let mut rng = rand_chacha::ChaChaRng::seed_from_u64(0);
    let mut counts = vec![];
    let mut n = 2;
    while n <= proofs.len() {
        counts.push(n);
        n *= 2;
    }
    for &n in &counts {
        let (pk, vk) = srs.specialize(n);
        for (vname, v) in [("v1", AggregateVersion::V1), ("v2", AggregateVersion::V2)] {
            let agg = aggregate_proofs::<Bls12>(&pk, &include, &proofs[..n], v).unwrap();
            let mut out = Vec::new();
            agg.write(&mut out).unwrap();
            fs::write(dir.join(format!("agg_{}_{}.rust.bin", vname, n)), &out).unwrap();
            let ok = verify_aggregate_proof(&vk, &pvk, &mut rng, &inputs[..n], &agg, &include, v).unwrap();
            let bad = verify_aggregate_proof(&vk, &pvk, &mut rng, &inputs[..n], &agg, b"other", v).unwrap();
            print!("{} n={}: rust agg verifies {} (other include {})", vname, n, ok, bad);
            let gp = dir.join(format!("agg_{}_{}.go.bin", vname, n));
            if let Ok(gb) = fs::read(&gp) {
                let ga = AggregateProof::<Bls12>::read(std::io::Cursor::new(&gb)).unwrap();
                let gok = verify_aggregate_proof(&vk, &pvk, &mut rng, &inputs[..n], &ga, &include, v).unwrap();
                let other = if v == AggregateVersion::V1 { AggregateVersion::V2 } else { AggregateVersion::V1 };
                let ov = verify_aggregate_proof(&vk, &pvk, &mut rng, &inputs[..n], &ga, &include, other).unwrap();
                let mut swapped = inputs[..n].to_vec();
                swapped.swap(0, 1);
                let sw = verify_aggregate_proof(&vk, &pvk, &mut rng, &swapped, &ga, &include, v).unwrap();
                let mut altered = inputs[..n].to_vec();
                altered[n - 1][0] += Scalar::from(1u64);
                let al = verify_aggregate_proof(&vk, &pvk, &mut rng, &altered, &ga, &include, v).unwrap();
                print!("; go agg same bytes {}, verifies {} (other version {}, swapped inputs {}, altered input {})", gb == out, gok, ov, sw, al);
            }
            println!();
        }
    }
}
