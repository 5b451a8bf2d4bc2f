// Stubs for what bellperson's aggregate module takes from crate::groth16.
pub mod aggregate;
pub mod multiscalar;

use group::prime::PrimeCurveAffine;
use pairing::{Engine, MultiMillerLoop};

#[derive(Clone, Debug)]
pub struct Proof<E: Engine> {
    pub a: E::G1Affine,
    pub b: E::G2Affine,
    pub c: E::G1Affine,
}

pub struct PreparedVerifyingKey<E: MultiMillerLoop> {
    pub ic: Vec<E::G1Affine>,
    pub multiscalar: multiscalar::MultiscalarPrecompOwned<E::G1Affine>,
    pub alpha_g1: E::G1,
    pub beta_g2: <E as MultiMillerLoop>::G2Prepared,
    pub gamma_g2: <E as MultiMillerLoop>::G2Prepared,
    pub delta_g2: <E as MultiMillerLoop>::G2Prepared,
    pub ic_projective: Vec<E::G1>,
}

// As bellperson's prepare_verifying_key, the fields aggregation uses.
pub fn prepare<E: MultiMillerLoop>(
    alpha_g1: E::G1Affine,
    beta_g2: E::G2Affine,
    gamma_g2: E::G2Affine,
    delta_g2: E::G2Affine,
    ic: Vec<E::G1Affine>,
) -> PreparedVerifyingKey<E> {
    let ms = multiscalar::precompute_fixed_window(&ic, multiscalar::WINDOW_SIZE);
    PreparedVerifyingKey {
        ic_projective: ic.iter().map(|i| i.to_curve()).collect(),
        ic,
        multiscalar: ms,
        alpha_g1: alpha_g1.to_curve(),
        beta_g2: beta_g2.into(),
        gamma_g2: gamma_g2.into(),
        delta_g2: delta_g2.into(),
    }
}
