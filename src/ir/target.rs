//! The architecture a module's `.target` names.

use super::Module;

/// The compute capability a `.target` (`sm_80`, `sm_90a`, `sm_100`) names,
/// as CUDA numbers it (80, 90, 100).
pub fn sm_version(target: &str) -> Option<u32> {
    let digits: String = target
        .strip_prefix("sm_")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

impl Module {
    /// The compute capability of the module's `.target` ([`sm_version`]).
    pub fn target_version(&self) -> Option<u32> {
        sm_version(&self.target)
    }
}

#[cfg(test)]
mod tests {
    use super::sm_version;

    #[test]
    fn targets_name_their_compute_capability() {
        assert_eq!(sm_version("sm_90"), Some(90));
        assert_eq!(sm_version("sm_90a"), Some(90));
        assert_eq!(sm_version("sm_100a"), Some(100));
        assert_eq!(sm_version("sm_80"), Some(80));
        assert_eq!(sm_version("compute_90"), None);
        assert_eq!(sm_version("sm_"), None);
    }
}
