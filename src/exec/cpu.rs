//! Which vector instructions the kernels use: the widest level this CPU runs, detected once,
//! unless `FERROITER_CPU_CAPABILITY` asks for less (torch's `ATEN_CPU_CAPABILITY`, with the
//! same values: `default`, `avx2`, `avx512`). The wheel is built for baseline x86-64, so every
//! wider loop is a copy compiled for its level and chosen here at run time; pinning a lower
//! level shows what a CPU without the wider instructions would run (results are the same bits
//! on every level: the tests compare them) and isolates a slow path on an unfamiliar CPU.
//!
//! A value that names no level is ignored with a warning on stderr; one above what the CPU
//! runs is capped at what it runs (torch does both alike).
#![forbid(unsafe_code)]

use std::sync::OnceLock;

/// A level of vector instructions, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Capability {
    /// The baseline build (SSE2 on x86-64): no run-time choice.
    Default,
    /// AVX2 with FMA and F16C, which every AVX2 CPU has.
    Avx2,
    /// AVX-512 Foundation, on top of [`Capability::Avx2`].
    Avx512,
}

impl Capability {
    /// The name `FERROITER_CPU_CAPABILITY` takes, and a configuration report shows.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Default => "default",
            Capability::Avx2 => "avx2",
            Capability::Avx512 => "avx512",
        }
    }

    fn parse(text: &str) -> Option<Capability> {
        match text.trim().to_ascii_lowercase().as_str() {
            "default" => Some(Capability::Default),
            "avx2" => Some(Capability::Avx2),
            "avx512" => Some(Capability::Avx512),
            _ => None,
        }
    }
}

/// The widest level this CPU runs.
pub fn detected() -> Capability {
    static DETECTED: OnceLock<Capability> = OnceLock::new();
    *DETECTED.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("fma") && has!("f16c") {
                return if has!("avx512f") {
                    Capability::Avx512
                } else {
                    Capability::Avx2
                };
            }
        }
        Capability::Default
    })
}

/// The level the kernels use: [`detected`], capped by `FERROITER_CPU_CAPABILITY` when set.
/// Read once per process (a cached load afterwards, cheap enough for every block).
pub fn capability() -> Capability {
    static USED: OnceLock<Capability> = OnceLock::new();
    *USED.get_or_init(|| {
        let cpu = detected();
        match std::env::var("FERROITER_CPU_CAPABILITY") {
            Err(_) => cpu,
            Ok(text) => match Capability::parse(&text) {
                Some(asked) => asked.min(cpu),
                None => {
                    eprintln!(
                        "ferroiter: ignoring FERROITER_CPU_CAPABILITY={text:?} (not one of \
                         default, avx2, avx512); using {}",
                        cpu.name()
                    );
                    cpu
                }
            },
        }
    })
}

/// For a test of a kernel that needs the CPU features `features` (comma-separated, as in
/// `#[target_feature]`): `available`. Where `FERROITER_REQUIRE_ISA` (comma-separated features,
/// e.g. `avx2,avx512f`) names every one of them and `available` is false, it panics: a machine
/// that is meant to run that kernel then fails the test instead of passing one that returned
/// early. (Naming only some of them does not require it: `avx2,fma` on an AVX2 machine leaves
/// the `avx512f,avx2,fma` kernels' tests skipped.) A test that does return early says so on
/// stderr (`cargo test -- --nocapture`).
#[cfg(test)]
pub(crate) fn test_runs(features: &str, available: bool) -> bool {
    if available {
        return true;
    }
    let required = std::env::var("FERROITER_REQUIRE_ISA").unwrap_or_default();
    let asked = features
        .split(',')
        .all(|f| required.split(',').any(|r| r.trim() == f.trim()));
    assert!(
        !asked,
        "FERROITER_REQUIRE_ISA={required} asks for {features}, which this test's kernel needs \
         and this CPU (or FERROITER_CPU_CAPABILITY) does not give"
    );
    eprintln!("skipped: the kernel needs {features}");
    false
}

/// Whether the kernels may run their AVX2 (with FMA and F16C) copies.
#[inline]
pub fn avx2() -> bool {
    capability() >= Capability::Avx2
}

/// Whether the kernels may run their AVX-512 copies.
#[inline]
pub fn avx512() -> bool {
    capability() >= Capability::Avx512
}

/// Whether the kernels may permute the lanes of a 64-byte vector of `width`-byte elements
/// with AVX-512 (`raw::interleave`): 4- and 8-byte lanes with AVX-512F, 2-byte ones with
/// AVX-512BW too, bytes with VBMI too.
pub fn avx512_permutes(width: usize) -> bool {
    static BYTES: OnceLock<(bool, bool)> = OnceLock::new();
    let (bw, vbmi) = *BYTES.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            (has!("avx512bw"), has!("avx512bw") && has!("avx512vbmi"))
        }
        #[cfg(not(target_arch = "x86_64"))]
        (false, false)
    });
    avx512()
        && match width {
            4 | 8 => true,
            2 => bw,
            1 => vbmi,
            _ => false,
        }
}

/// Whether the kernels may shuffle the bytes of 16-byte lanes (`raw::lane_shuffle`: AVX2's
/// `vpshufb`, NEON's `tbl`), which merge a few rows or columns of 1-, 2-, 4- or 8-byte
/// elements where AVX-512's lane permutes are missing ([`avx512_permutes`]).
pub fn byte_shuffles(width: usize) -> bool {
    matches!(width, 1 | 2 | 4 | 8) && {
        #[cfg(target_arch = "x86_64")]
        {
            avx2()
        }
        #[cfg(target_arch = "aarch64")]
        {
            true
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            false
        }
    }
}

/// Whether the permuting copy may merge a few rows or columns of `width`-byte elements lane
/// by lane: with AVX-512's lane permutes, or else with byte shuffles.
pub fn lane_merges(width: usize) -> bool {
    avx512_permutes(width) || byte_shuffles(width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_levels_are_ordered() {
        for c in [Capability::Default, Capability::Avx2, Capability::Avx512] {
            assert_eq!(Capability::parse(c.name()), Some(c));
            assert_eq!(
                Capability::parse(&format!(" {} ", c.name().to_uppercase())),
                Some(c)
            );
        }
        assert_eq!(Capability::parse("avx512f"), None);
        assert_eq!(Capability::parse(""), None);
        assert!(Capability::Default < Capability::Avx2 && Capability::Avx2 < Capability::Avx512);
        assert!(capability() <= detected());
    }
}
