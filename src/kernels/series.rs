//! Taylor coefficients shared by the scalar and the vector exp kernels: `1/n!` tables built
//! at compile time, so each width's kernel says only which terms it keeps.

/// `[1/from!, 1/(from+1)!, …]`, `N` terms, each the correctly rounded f64 quotient: the
/// factorials stay below 2^53 (n ≤ 18), so they are exact before the one division.
pub const fn inverse_factorials<const N: usize>(from: usize) -> [f64; N] {
    let mut out = [0.0; N];
    let mut fact = 1.0;
    let mut n = 1;
    while n < from {
        fact *= n as f64;
        n += 1;
    }
    let mut i = 0;
    while i < N {
        if from + i > 0 {
            fact *= (from + i) as f64;
        }
        out[i] = 1.0 / fact;
        i += 1;
    }
    out
}

/// The f32 table: the f64 quotients rounded to f32 (the test checks that the terms the f32
/// kernels use equal the f32 quotients `1.0f32 / n!`).
pub const fn inverse_factorials_f32<const N: usize>(from: usize) -> [f32; N] {
    let wide: [f64; N] = inverse_factorials(from);
    let mut out = [0.0; N];
    let mut i = 0;
    while i < N {
        out[i] = wide[i] as f32;
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_equal_the_literal_quotients() {
        let t: [f64; 12] = inverse_factorials(0);
        assert_eq!(t[0], 1.0);
        assert_eq!(t[1], 1.0);
        assert_eq!(t[7], 1.0 / 5_040.0);
        assert_eq!(t[11], 1.0 / 39_916_800.0);
        let q: [f64; 12] = inverse_factorials(2);
        assert_eq!(q[0], 0.5);
        assert_eq!(q[11], 1.0 / 6_227_020_800.0);
        let s: [f32; 6] = inverse_factorials_f32(2);
        let literal: [f32; 6] = [
            1.0 / 2.0,
            1.0 / 6.0,
            1.0 / 24.0,
            1.0 / 120.0,
            1.0 / 720.0,
            1.0 / 5_040.0,
        ];
        assert_eq!(s, literal);
    }
}
