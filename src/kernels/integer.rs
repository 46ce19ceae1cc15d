//! Integer shifts and C's remainder, with torch's results where Rust's operators would panic
//! or differ: a shift count that is negative or at least the bit width shifts everything out
//! (a left shift gives 0, a right shift the sign fill: 0 or -1), and `fmod` truncates
//! (the sign of the dividend), wrapping `MIN % -1` to 0.

/// Shifts and `fmod` of one integer type.
pub trait IntegerOps: Copy {
    /// `self << count`; a count that is negative or at least the bit width gives 0.
    fn shift_left(self, count: Self) -> Self;
    /// `self >> count` (arithmetic for signed types); a count that is negative or at least the bit
    /// width gives the sign fill (0 or -1).
    fn shift_right(self, count: Self) -> Self;
    /// `None` for a division by zero.
    fn fmod(self, b: Self) -> Option<Self>;
}

macro_rules! integer_ops {
    ($($t:ty),*) => {$(
        impl IntegerOps for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shift_left(self, count: Self) -> Self {
                if count < 0 || count as u64 >= <$t>::BITS as u64 {
                    0
                } else {
                    self.wrapping_shl(count as u32)
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shift_right(self, count: Self) -> Self {
                if count < 0 || count as u64 >= <$t>::BITS as u64 {
                    // an arithmetic shift by width - 1: the sign fill (0 for unsigned types)
                    if self < 0 { !0 } else { 0 }
                } else {
                    self.wrapping_shr(count as u32)
                }
            }
            #[inline(always)]
            fn fmod(self, b: Self) -> Option<Self> {
                (b != 0).then(|| self.wrapping_rem(b))
            }
        }
    )*};
}
integer_ops!(u8, u16, u32, u64, i8, i16, i32, i64);

#[cfg(test)]
mod tests {
    use super::IntegerOps;

    #[test]
    fn shifts_out_of_range_as_torch() {
        assert_eq!((-3i8).shift_left(7), -128);
        assert_eq!(5i8.shift_left(8), 0);
        assert_eq!(5i8.shift_left(-1), 0);
        assert_eq!((-3i8).shift_right(9), -1);
        assert_eq!((-3i8).shift_right(-100), -1);
        assert_eq!(100i8.shift_right(64), 0);
        assert_eq!(253u8.shift_right(7), 1);
        assert_eq!(253u8.shift_right(8), 0);
        assert_eq!((-7i64).fmod(2), Some(-1));
        assert_eq!(i32::MIN.fmod(-1), Some(0));
        assert_eq!(3u8.fmod(0), None);
    }
}
