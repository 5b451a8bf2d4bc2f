// Stub: only the error type bellperson's aggregate module returns.
#[derive(Debug)]
pub enum SynthesisError {
    IncompatibleLengthVector(String),
    MalformedProofs(String),
    MalformedSrs,
    MalformedVerifyingKey,
    NonPowerOfTwo,
}
impl std::fmt::Display for SynthesisError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "{:?}", self) }
}
impl std::error::Error for SynthesisError {}
