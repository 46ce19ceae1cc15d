//! float16/bfloat16 ↔ f32 conversions written without branches, so that a loop of them
//! compiles to a few vector instructions per lane (the `half` crate converts one element at a
//! time behind a run-time CPU check, which no loop can vectorize).
//!
//! Every result is bit-exact with IEEE round-to-nearest-even, as torch converts: overflow goes
//! to ±inf, values below the smallest half subnormal round to ±0, signs of zeros are kept.
//! NaN stays NaN with its sign and the top of its payload, quieted (what torch's F16C path and
//! the `half` crate do), except bfloat16 → f32, which is a plain widening as in torch (torch's
//! own paths disagree on NaN bits: float → bfloat16 gives 0xFFFF vectorized, 0x7FC0 scalar).

/// f32 bits of 0.5: adding 0.5 to a value below 2^-14 rounds it to a multiple of 2^-24, the
/// float16 subnormal step, and the step count lands in the low mantissa bits.
const HALF_F32: u32 = 0x3F00_0000;

/// The f32 exponent bias minus float16's, in f32 exponent position.
const REBIAS: u32 = (127 - 15) << 23;

/// f32 → float16 bits, rounding to nearest even.
#[inline(always)]
pub fn f32_to_f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    // |x| as a non-negative i32: signed compares are one vector instruction, unsigned three.
    let abs = (bits & 0x7FFF_FFFF) as i32;
    // Normal results: rebias the exponent, then round the 13 dropped bits (a carry may ripple
    // into the exponent, up to infinity for |x| ≥ 65520). Clamping |x| to 2^16 first makes the
    // same formula give infinity (0x7C00) for every larger finite value and for inf.
    let c = abs.min((127 + 16) << 23) as u32;
    let normal = c.wrapping_sub(REBIAS).wrapping_add(0xFFF + ((c >> 13) & 1)) >> 13;
    // Subnormal results (|x| < 2^-14): the f32 adder does the rounding.
    let sub = (f32::from_bits(abs as u32) + f32::from_bits(HALF_F32))
        .to_bits()
        .wrapping_sub(HALF_F32);
    let finite = if abs < (127 - 14) << 23 { sub } else { normal };
    let nan = 0x7E00 | ((abs as u32 >> 13) & 0x3FF);
    let magnitude = if abs > 0x7F80_0000 { nan } else { finite };
    (((bits >> 16) & 0x8000) | magnitude) as u16
}

/// float16 bits → f32 (exact).
#[inline(always)]
pub fn f16_bits_to_f32(h: u16) -> f32 {
    let h = h as u32;
    let em = (h & 0x7FFF) as i32;
    // Normal numbers: rebias the exponent.
    let normal = ((em as u32) << 13) + REBIAS;
    // Subnormals (and zero): one exponent step up, the bits read 2^-14·(1 + m/1024), and
    // subtracting 2^-14 leaves m·2^-24 exactly.
    let sub = (f32::from_bits(normal + (1 << 23)) - f32::from_bits((127 - 14) << 23)).to_bits();
    // inf and NaN: rebias once more to the top exponent; NaNs get the quiet bit.
    let quiet = if em > 0x7C00 { 0x0040_0000 } else { 0 };
    let inf_nan = (normal + REBIAS) | quiet;
    let magnitude = if em >= 0x7C00 {
        inf_nan
    } else if em >= 0x0400 {
        normal
    } else {
        sub
    };
    f32::from_bits(((h & 0x8000) << 16) | magnitude)
}

/// f32 → bfloat16 bits, rounding to nearest even (overflow rounds to ±inf by the carry).
#[inline(always)]
pub fn f32_to_bf16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let odd = (bits >> 16) & 1;
    let rounded = bits.wrapping_add(0x7FFF + odd) >> 16;
    let nan = (bits >> 16) | 0x0040;
    (if (bits & 0x7FFF_FFFF) as i32 > 0x7F80_0000 {
        nan
    } else {
        rounded
    }) as u16
}

/// bfloat16 bits → f32: the top half of an f32.
#[inline(always)]
pub fn bf16_bits_to_f32(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// f32 patterns around every place a conversion changes behaviour: each exponent with
/// mantissas at, just below and just above the rounding halfway points of both formats
/// (even and odd kept bits), plus a deterministic pseudo-random sweep of `random` patterns.
/// Shared by the conversion tests here and the streaming kernels' (exec/raw/stream.rs).
#[cfg(test)]
pub(crate) fn probe_patterns(random: usize) -> Vec<u32> {
    let mut v = Vec::new();
    for sign in [0u32, 0x8000_0000] {
        for exp in 0u32..=255 {
            for low in [
                0u32, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x3000, 0x7FFF,
            ] {
                for high in [0u32, 1, 2, 3, 0x3FE, 0x3FF, 0x7F] {
                    for shift in [13u32, 16] {
                        let man = ((high << shift) | low) & 0x7F_FFFF;
                        for d in [0u32, 1, u32::MAX] {
                            v.push(sign | (exp << 23) | man.wrapping_add(d) & 0x7F_FFFF);
                        }
                    }
                }
            }
            v.push(sign | (exp << 23) | 0x7F_FFFF);
        }
    }
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..random {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.push(s as u32);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// Bit-equal to the `half` crate (NaNs included).
    fn same_f16(ours: u16, x: f32) {
        let theirs = f16::from_f32(x).to_bits();
        assert_eq!(ours, theirs, "f32 {:#010x} -> f16", x.to_bits());
    }

    #[test]
    fn f16_to_f32_all_patterns() {
        for h in 0..=u16::MAX {
            let (ours, theirs) = (f16_bits_to_f32(h), f16::from_bits(h).to_f32());
            assert_eq!(ours.to_bits(), theirs.to_bits(), "f16 {h:#06x}");
        }
    }

    #[test]
    fn bf16_to_f32_all_patterns() {
        for b in 0..=u16::MAX {
            let (ours, theirs) = (bf16_bits_to_f32(b), bf16::from_bits(b).to_f32());
            if theirs.is_nan() {
                // a plain widening (torch), where `half` also sets the quiet bit
                assert!(ours.is_nan());
                assert_eq!(
                    ours.to_bits() | 0x0040_0000,
                    theirs.to_bits(),
                    "bf16 {b:#06x}"
                );
            } else {
                assert_eq!(ours.to_bits(), theirs.to_bits(), "bf16 {b:#06x}");
            }
        }
    }

    #[test]
    fn f32_to_half_types_at_rounding_boundaries() {
        for bits in probe_patterns(4_000_000) {
            let x = f32::from_bits(bits);
            same_f16(f32_to_f16_bits(x), x);
            let theirs = bf16::from_f32(x).to_bits();
            assert_eq!(f32_to_bf16_bits(x), theirs, "f32 {bits:#010x} -> bf16");
        }
    }

    #[test]
    fn round_trips_of_every_half_value() {
        for h in 0..=u16::MAX {
            let x = f16_bits_to_f32(h);
            if !x.is_nan() {
                assert_eq!(f32_to_f16_bits(x), h);
            }
            let y = bf16_bits_to_f32(h);
            if !y.is_nan() {
                assert_eq!(f32_to_bf16_bits(y), h);
            }
        }
    }

    #[test]
    #[ignore = "all 2^32 f32 patterns: a minute or more; run with --ignored"]
    fn f32_to_half_types_all_patterns() {
        for bits in 0..=u32::MAX {
            let x = f32::from_bits(bits);
            same_f16(f32_to_f16_bits(x), x);
            assert_eq!(
                f32_to_bf16_bits(x),
                bf16::from_f32(x).to_bits(),
                "{bits:#x}"
            );
        }
    }
}
