//! What `ferroiter.show_config()` reports about this build and this machine, and
//! `empty_cache()`: small facts only the compiled core knows (its version, how it was built, the
//! SIMD level the CPU offers at run time, the cache of freed large buffers).
#![forbid(unsafe_code)]

use pyo3::prelude::*;

/// The widest SIMD level this CPU offers, detected at run time (the wheel itself is built for
/// the baseline target; the kernels pick their wider copies from the same detection).
fn detected_simd_level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            "avx512f"
        } else if std::arch::is_x86_feature_detected!("avx2") {
            "avx2"
        } else {
            "sse2"
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            "neon"
        } else {
            "scalar"
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        "scalar"
    }
}

/// `_simd_level()`: "avx512f", "avx2", "sse2", "neon" or "scalar".
#[pyfunction]
fn _simd_level() -> &'static str {
    detected_simd_level()
}

/// `_num_threads_source()`: where the thread count came from (an environment variable, the
/// cores available to the process, or a `set_num_threads` call).
#[pyfunction]
fn _num_threads_source() -> &'static str {
    crate::settings::num_threads_source().1.describe()
}

/// `_build_info()`: how this extension was compiled, as a dict of strings and flags.
#[pyfunction]
fn _build_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item("version", env!("CARGO_PKG_VERSION"))?;
    d.set_item(
        "profile",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "optimized"
        },
    )?;
    d.set_item("target_arch", std::env::consts::ARCH)?;
    d.set_item("target_os", std::env::consts::OS)?;
    d.set_item("simd_level", detected_simd_level())?;
    d.set_item("kernels_avx2", crate::exec::cpu::avx2())?;
    d.set_item("cpu_capability", crate::exec::cpu::capability().name())?;
    d.set_item(
        "cpu_capability_detected",
        crate::exec::cpu::detected().name(),
    )?;
    d.set_item("cache_enabled", crate::storage::buffer_cache::enabled())?;
    d.set_item(
        "cache_held_bytes",
        crate::storage::buffer_cache::held_bytes(),
    )?;
    Ok(d)
}

/// `empty_cache()`: returns the freed large buffers ferroiter keeps for reuse to the system.
#[pyfunction]
fn empty_cache() {
    crate::storage::buffer_cache::empty();
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(_simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(_build_info, m)?)?;
    m.add_function(wrap_pyfunction!(_num_threads_source, m)?)?;
    m.add_function(wrap_pyfunction!(empty_cache, m)?)?;
    Ok(())
}
