//! The data cache sizes of the machine, which the tiled walk sizes its tiles from: read once
//! from Linux's sysfs (`/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}`), with
//! the common sizes of current x86 and ARM cores where that is not available.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

/// L1 data cache assumed when sysfs says nothing: 32 KiB (Intel, AMD Zen, most ARM cores
/// have 32 or 48).
pub const FALLBACK_L1_BYTES: usize = 32 * 1024;
/// L2 assumed when sysfs says nothing: 512 KiB (Zen 2-3 have 512 KiB, newer cores 1-2 MiB).
pub const FALLBACK_L2_BYTES: usize = 512 * 1024;

/// Last-level cache assumed when sysfs says nothing: 8 MiB.
pub const FALLBACK_L3_BYTES: usize = 8 * 1024 * 1024;

/// Data cache sizes in bytes (L1 and L2 per core, L3 as cpu0 sees it; an L2 stands in for a
/// missing L3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSizes {
    /// L1 data cache per core, in bytes.
    pub l1d: usize,
    /// L2 cache per core, in bytes.
    pub l2: usize,
    /// Last-level cache as cpu0 sees it, in bytes (the L2's size where sysfs reports an L2 but no
    /// L3).
    pub l3: usize,
}

/// The machine's sizes, read at first use; each level falls back on its constant when
/// missing or implausible (under 8 KiB or over 1 GiB).
pub fn sizes() -> CacheSizes {
    static SIZES: OnceLock<CacheSizes> = OnceLock::new();
    *SIZES.get_or_init(|| {
        let read = |level: u32| read_sysfs(level).filter(|&b| (8 << 10..=1 << 30).contains(&b));
        let l2 = read(2).unwrap_or(FALLBACK_L2_BYTES);
        CacheSizes {
            l1d: read(1).unwrap_or(FALLBACK_L1_BYTES),
            l2,
            l3: read(3).unwrap_or(if read(2).is_some() {
                l2
            } else {
                FALLBACK_L3_BYTES
            }),
        }
    })
}

/// The size of cpu0's data (or unified) cache of `level`, if sysfs lists one.
fn read_sysfs(level: u32) -> Option<usize> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    for entry in dir.flatten() {
        let path = entry.path();
        let field = |name: &str| std::fs::read_to_string(path.join(name)).ok();
        let Some(found) = field("level").and_then(|s| s.trim().parse::<u32>().ok()) else {
            continue;
        };
        let kind = field("type").unwrap_or_default();
        if found == level && matches!(kind.trim(), "Data" | "Unified") {
            return field("size").and_then(|s| parse_size(s.trim()));
        }
    }
    None
}

/// A sysfs cache size: `"32K"`, `"1024K"`, `"32M"` or plain bytes.
fn parse_size(text: &str) -> Option<usize> {
    let (digits, scale) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 1 << 10),
        b'M' | b'm' => (&text[..text.len() - 1], 1 << 20),
        b'G' | b'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_are_plausible() {
        assert_eq!(parse_size("32K"), Some(32 << 10));
        assert_eq!(parse_size("1024K"), Some(1 << 20));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size("x"), None);
        let s = sizes();
        assert!(s.l1d >= 8 << 10 && s.l2 >= 8 << 10, "{s:?}");
    }
}
