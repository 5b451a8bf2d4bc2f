pub mod groth16;
