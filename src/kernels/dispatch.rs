//! Dtype dispatch: the one place a runtime dtype becomes a Rust element type. Each list names
//! the dtypes a family of kernels supports; any other dtype takes the `else` branch.

/// `dispatch_in!(dtype, T in [F32, I64, …] => body, else fallback)`.
#[macro_export]
macro_rules! dispatch_in {
    ($dtype:expr, $T:ident in [$($v:ident),* $(,)?] => $body:expr, else $err:expr) => {{
        #[allow(unused_imports)]
        use $crate::kernels::element::*;
        match $dtype {
            $( $crate::DType::$v => { type $T = $crate::dispatch_in!(@ty $v); $body } )*
            #[allow(unreachable_patterns)]
            _ => $err,
        }
    }};
    (@ty Bool) => { $crate::kernels::element::Bool };
    (@ty U8) => { u8 };
    (@ty U16) => { u16 };
    (@ty U32) => { u32 };
    (@ty U64) => { u64 };
    (@ty I8) => { i8 };
    (@ty I16) => { i16 };
    (@ty I32) => { i32 };
    (@ty I64) => { i64 };
    (@ty F16) => { half::f16 };
    (@ty BF16) => { half::bf16 };
    (@ty F32) => { f32 };
    (@ty F64) => { f64 };
    (@ty C64) => { $crate::kernels::element::C64 };
    (@ty C128) => { $crate::kernels::element::C128 };
}

/// Every storable dtype.
#[macro_export]
macro_rules! dispatch_all {
    ($dtype:expr, $T:ident => $body:expr, else $err:expr) => {
        $crate::dispatch_in!($dtype, $T in [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C64, C128] => $body, else $err)
    };
}

/// Every dtype with an order (all but complex).
#[macro_export]
macro_rules! dispatch_ordered {
    ($dtype:expr, $T:ident => $body:expr, else $err:expr) => {
        $crate::dispatch_in!($dtype, $T in [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64] => $body, else $err)
    };
}

/// Integers and bool (bitwise operations).
#[macro_export]
macro_rules! dispatch_integral {
    ($dtype:expr, $T:ident => $body:expr, else $err:expr) => {
        $crate::dispatch_in!($dtype, $T in [Bool, U8, U16, U32, U64, I8, I16, I32, I64] => $body, else $err)
    };
}

/// Floating and complex dtypes (true division, transcendental functions).
#[macro_export]
macro_rules! dispatch_inexact {
    ($dtype:expr, $T:ident => $body:expr, else $err:expr) => {
        $crate::dispatch_in!($dtype, $T in [F16, BF16, F32, F64, C64, C128] => $body, else $err)
    };
}
