//! When stores bypass the caches: one home for the thresholds the flat copy
//! (`kernels::copy`), the elementwise loops' contiguous output rows (`elementwise_streams`),
//! the direct tiled walk ([`super::tiled`]) and the permuting copy ([`super::permute`]) take.
//!
//! A plain store first reads the line it writes (to own it) and leaves it in the cache; a
//! non-temporal ("streamed") store sends whole lines to memory and reads nothing. Plain stores
//! win while the output stays in a cache the core reads quickly; past that, the line each one
//! reads is traffic for nothing. Where that point lies depends on what the last-level cache
//! gives one core ([`LastLevel`]), measured on two 2-core machines (float32, best of
//! several repeated copies of the same arrays):
//!
//! - AMD Zen 4 (32 MiB of L3 per core complex): NHWC -> NCHW of (B, 56, 56, 64) at 70% of a
//!   same-size copy with plain stores against 65% streamed for B = 8 (6.4 MB of output), 32%
//!   against 62% for B = 10 (48% / 73% at 12, 19% / 82% at 14); flat copies streamed at 56
//!   GB/s against torch's plain 63 for 3136K elements (25 MB moved, in L3), 42 against 36
//!   for 8M.
//! - An Intel Xeon (Sapphire Rapids class, 2 MiB of L2 per core, 260 MiB of L3 for the
//!   socket, in a virtual machine; one process alternating the two kinds of store):
//!   streamed stores won from an output the size of L2 on when the same op ran again and
//!   again (flat copies of 8M float32 11 -> 21 GB/s; transposes of 4096² 41% -> 90% of a
//!   plain copy). But an op's output is usually the next op's input: on a later Xeon of the
//!   same kind (300 MiB of L3), chains of ops on 16-64 MB arrays (scikit-learn's and SciPy's
//!   calls) ran 1.2-1.6x faster with plain stores, which leave the output in the L3, and a
//!   pair of ops (`out = -2 * x; out += row`) was as fast either way from 122 MiB on. So flat
//!   loops stream there only past a quarter of the L3 (`docs/performance-notes.md`); the
//!   transposing copies below keep their L2 rule, not measured in chains yet.
//!
//! Streamed tiles of a transposing copy whose output columns are not line-aligned go through
//! scratch (a strip of 16 columns in the direct tiled walk, the whole tile's image in the
//! permuting copy) where [`staged_run`] says; the two machines differ there too.
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::cache;
use super::chunks::Chunks;
use crate::plan::TensorIterator;

/// What the last-level cache gives one core, by CPU vendor (the cache sizes cannot tell: a
/// virtual machine lists its 2 cores as the only sharers of the host socket's L3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastLevel {
    /// An L3 near each core (AMD's per core complex, and what is assumed where the vendor is
    /// unknown): reading and writing it is much faster than memory.
    Near,
    /// Intel's L3, shared by the whole socket over a mesh (or a ring on client parts, which
    /// were not measured): one core reads and writes it little faster than memory.
    Far,
}

/// This machine's [`LastLevel`]: `Far` for an Intel CPU (`vendor_id` in `/proc/cpuinfo` on
/// Linux), `Near` otherwise.
pub fn last_level() -> LastLevel {
    static KIND: OnceLock<LastLevel> = OnceLock::new();
    *KIND.get_or_init(|| {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        from_cpuinfo(&cpuinfo)
    })
}

/// The [`LastLevel`] of the CPU `/proc/cpuinfo`'s text describes.
fn from_cpuinfo(text: &str) -> LastLevel {
    let vendor = text
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == "vendor_id").then(|| value.trim())
        })
        .unwrap_or("");
    if vendor == "GenuineIntel" {
        LastLevel::Far
    } else {
        LastLevel::Near
    }
}

/// How many cores share a loop over `numel` elements: its chunks at the current thread count
/// and grain ([`Chunks`]), at most the cores the process may run on (read once), one inside
/// another loop's chunk (nested loops run serially). Each core's L2 holds its own share of
/// the operands, and on a far last level a transposing copy streams only when that share does
/// not fit ([`transposing_copy_from`]). (Flat loops once took the same rule: a 1M-element
/// float32 add into `out` at 16 threads moves 768 KiB per core, which stays in the cores'
/// L2s from one call to the next, and streamed to memory it ran at 0.38x torch on the 16-core
/// Xeon.)
pub fn threads_sharing(numel: usize) -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    if super::pool::in_parallel_region() {
        return 1;
    }
    let threads = crate::settings::get_num_threads();
    let chunks = Chunks::new(numel, crate::settings::grain_size(), threads).count;
    chunks
        .min(*CORES.get_or_init(crate::settings::available_cores))
        .max(1)
}

/// Whether a flat copy or elementwise loop (operands contiguous along their rows) that writes
/// `out_bytes` and moves `moved_bytes` (read plus written) streams its stores: with a near L3,
/// once the operands together exceed it (a contiguous row's plain stores read their lines with
/// the prefetchers' help, so the cache is worth keeping up to its size); with a far one, once
/// the output exceeds a quarter of it. Below that the next op finds the output in the L3:
/// streamed, scikit-learn's and SciPy's chains of ops on 16-64 MB arrays ran 1.2-1.6x slower
/// on the 2-core Xeon, while the same op repeated alone ran up to 1.6x faster
/// (`docs/performance-notes.md`, "Streamed stores on a far L3").
pub fn flat_output_streams(out_bytes: usize, moved_bytes: usize) -> bool {
    let forced = STREAMED_FROM.load(Ordering::Relaxed);
    if forced != 0 {
        return out_bytes >= forced;
    }
    let sizes = cache::sizes();
    match last_level() {
        LastLevel::Near => moved_bytes > sizes.l3,
        LastLevel::Far => out_bytes > sizes.l3 / 4,
    }
}

/// The output size (bytes) from which [`flat_output_streams`] streams, when set (0: its rule).
static STREAMED_FROM: AtomicUsize = AtomicUsize::new(0);

/// Makes flat copies and elementwise loops stream every output of at least `bytes` (`None`:
/// the cache rule again), so that tests reach the streamed stores' code on any machine; the
/// previous setting.
pub fn set_streamed_from(bytes: Option<usize>) -> Option<usize> {
    // 0 stands for "no setting": a setting of 0 bytes streams from 1 byte on, the same
    let old = STREAMED_FROM.swap(bytes.map_or(0, |b| b.max(1)), Ordering::Relaxed);
    (old != 0).then_some(old)
}

/// Whether a flat copy of `numel` elements from `in_width`-byte into `out_width`-byte
/// elements streams its stores ([`flat_output_streams`]): what `kernels::copy` and the copy's
/// walk order (`copy_strategy`'s `input_order`) both ask.
pub fn copy_streams(numel: usize, in_width: usize, out_width: usize) -> bool {
    flat_output_streams(
        numel.saturating_mul(out_width),
        numel.saturating_mul(in_width + out_width),
    )
}

/// Shortest row (bytes) a flat copy or elementwise loop streams: a row that is short runs
/// (a permutation that keeps a long last dim, e.g. (46, 111, 4, 397) by (1, 2, 0, 3): rows of
/// 1588 bytes) leaves a partial line at both ends, and such a copy ran at 0.74x torch
/// streamed against 0.98x with plain stores on the 2-core Zen 4, where rows of 16 KiB ran
/// 1.3x torch streamed against 1.1x plain.
pub const MIN_STREAMED_ROW: usize = 4096;

/// Shortest row (bytes) a same-dtype flat copy streams (`kernels::copy`). Its rows follow
/// each other in the output wherever the output is contiguous (a permutation that keeps the
/// last dim), so only the line where two rows meet is stored plainly. With a near last level
/// [`MIN_STREAMED_ROW`], the Zen 4's measurement above; with a far one 512 bytes: on the
/// 2-core Xeon (8M float32, one process alternating the two) (46, 111, 4, 397) by
/// (1, 2, 0, 3) (rows of 1588 bytes) went from 45-61% to 83-86% of the copy limit at 1
/// thread and from 68-74% to 83-92% at 2, (46, 111, 8, 200) (800 bytes) from 42-55% to 84-85%
/// and 77-80% to 87-88%, (46, 111, 16, 130) (520) from 36-46% to 61-68% and 53-62% to
/// 63-64%; rows of 400 bytes gained at 1 thread but not at 2.
pub fn min_streamed_copy_row() -> usize {
    match last_level() {
        LastLevel::Near => MIN_STREAMED_ROW,
        LastLevel::Far => 512,
    }
}

/// Whether a streamed same-dtype copy of rows contiguous in both operands walks in the
/// input's memory order (`copy_strategy`), streaming every row, rather than torch's. With
/// a near last level, yes: on the 2-core Zen 4 (1 thread, 8M float32 `(46, N, 4, R)` by
/// `(1, 2, 0, 3)`, a standalone loop of row copies, both orders alternating) rows of 256 /
/// 520 / 1588 / 4000 bytes ran at 14.6 / 11.3 / 17.1 / 22.6 GB/s in the output's order with
/// plain stores, 12.5 / 13.0 / 20.2 / 24.0 there streamed, and 28.6 / 16.9 / 29.2 / 39.7 in the
/// input's order streamed (a plain copy of the same bytes: 23-27). Not measured with a far
/// one, whose copies keep torch's order ([`min_streamed_copy_row`] streams their rows).
pub fn streamed_copy_follows_input() -> bool {
    last_level() == LastLevel::Near
}

/// Whether an elementwise plan's contiguous output rows (of at least [`MIN_STREAMED_ROW`]
/// bytes) are written with streamed stores: one output that no input's memory reaches (an
/// in-place op reads the lines it writes anyway, so streaming them saves nothing), not a
/// reduction, at least a quarter of the bytes the loop moves (streaming saves one read of the
/// output: float32 comparisons into bool, a ninth, ran at 0.96-0.98x streamed, where float32
/// adds ran 1.17-1.30x on the Intel Xeon, 1 thread, 1M-16M elements), and large enough by
/// [`flat_output_streams`] on the threads that share the loop.
///
/// The vector math kernels (`raw::lanes`) stream each block's line as they compute it (a
/// block is one line for float32 and float64). Staged through the typed loops' scratch, whose
/// turns with the loop cost more than they saved while the data stayed in L3, float32 `exp`
/// of 4M elements ran at 0.81x the plain stores' speed; streamed a block at a time (the Intel
/// Xeon, one process alternating both, 1 thread): float32 `exp` of 512K-16M elements
/// 1.10-1.22x, float64 `exp` 1M-16M 1.14-1.17x, float64 `log` 4M 1.16x, the compute-bound
/// float32 `sin` and `tanh` and float64 `sin` 0.99-1.03x; 2 threads 1.04-1.59x. Rows from a
/// strided input are gathered in chunks and streamed the same way (see `raw::lanes`).
pub(crate) fn elementwise_streams(plan: &TensorIterator) -> bool {
    // Every walk asks, and most plans are small: an output under both an L2 and a quarter of
    // the L3 never streams by [`flat_output_streams`] (a near L3 wants operands past it, of
    // which the output is at least a quarter; a far one an output past a quarter of it), so
    // such a plan skips counting the operand bytes (about 220 of the 9,800 instructions a
    // 1-element add took in the extension, counted by callgrind).
    let out_bytes = plan
        .numel()
        .saturating_mul(plan.operands().first().map_or(0, |op| op.itemsize()));
    if !may_stream(out_bytes) {
        return false;
    }
    elementwise_streams_on(plan)
}

/// Whether an output of `out_bytes` is large enough that [`elementwise_streams`] may stream
/// it: past both an L2 and a quarter of the L3 (or what a test forced).
pub(crate) fn may_stream(out_bytes: usize) -> bool {
    let smallest = match STREAMED_FROM.load(Ordering::Relaxed) {
        0 => {
            let sizes = cache::sizes();
            sizes.l2.min(sizes.l3 / 4)
        }
        forced => forced,
    };
    out_bytes >= smallest
}

/// [`elementwise_streams`] past its early exit for small outputs.
fn elementwise_streams_on(plan: &TensorIterator) -> bool {
    let ops = plan.operands();
    let Some(out) = ops.first().and_then(|op| op.array.as_ref()) else {
        return false;
    };
    if plan.config.is_reduction || plan.noutputs() != 1 {
        return false;
    }
    let shape = plan.shape();
    let moved = ops.iter().fold(0usize, |sum, op| {
        sum.saturating_add(distinct_bytes(shape, &op.stride_bytes, op.itemsize()))
    });
    let out_bytes = plan.numel().saturating_mul(out.itemsize());
    // the sizes first: every walk asks, and most plans are small
    out_bytes >= moved / 4 && flat_output_streams(out_bytes, moved) && !plan.output_meets_an_input()
}

/// Bytes an operand of `width`-byte elements spans over `shape` with byte `strides`: a
/// broadcast dim (stride 0) reads the same elements again. (Counted as the whole shape, the
/// (64, 1, 1) bias of a (16, 64, 56, 56) float32 add took the loop past the 32 MiB L3 of a
/// 2-core Zen 3, where its 25 MiB of operands stayed: streamed at 2 threads it ran 0.69-0.75x
/// torch's plain stores.)
fn distinct_bytes(shape: &[usize], strides: &[isize], width: usize) -> usize {
    shape
        .iter()
        .zip(strides)
        .filter(|&(_, &s)| s != 0)
        .fold(width, |bytes, (&n, _)| bytes.saturating_mul(n))
}

/// For `explain()`: the stores of an untiled elementwise walk
/// (`elementwise_streams`).
pub fn describe_flat(streamed: bool) -> String {
    let sizes = cache::sizes();
    let (rule, cache) = match last_level() {
        LastLevel::Near => (
            format!("the operands move more than {} KiB", sizes.l3 >> 10),
            "near last-level cache",
        ),
        LastLevel::Far => (
            format!(
                "the output is more than {} KiB, a quarter of the last level",
                (sizes.l3 / 4) >> 10
            ),
            "far last-level cache (Intel)",
        ),
    };
    if streamed {
        format!(
            "stores: non-temporal in contiguous output rows of at least {} bytes ({} in \
             same-dtype copies), except float16/bfloat16 vector math and F16C rows ({rule}; \
             {cache})",
            MIN_STREAMED_ROW,
            min_streamed_copy_row()
        )
    } else {
        format!(
            "stores: ordinary (streamed only for one output of at least a quarter of the bytes \
             moved, which no input reaches, when {rule}; {cache})"
        )
    }
}

/// Input rows far apart that a transposing copy's tile reads at once, from which, on more
/// than one thread, its stores stream from 3/8 of a near L3 rather than half of it
/// ([`transposing_copy_from`]).
pub const MANY_INPUT_ROWS: usize = 16;

/// The input rows the permuting copy counts as ([`transposing_copy_from`]): always more than
/// [`MANY_INPUT_ROWS`] (its stores were not measured otherwise).
pub const PERMUTING_COPY_ROWS: usize = usize::MAX;

/// Output bytes from which a transposing copy (the direct tiled walk, the permuting copy) on
/// `threads` threads, whose tiles read `input_rows` input rows far apart at once (1 where
/// they follow each other in memory), streams its stores. With a near L3: on one thread a
/// quarter of it (input and output together take half of it, and it is shared with other
/// cores), on more threads half of it (input and output within it), or 3/8 where the tiles
/// read more than [`MANY_INPUT_ROWS`] rows apart (the permuting copy always counts so), and
/// at least 4 L2s either way — a transposing copy writes each output line while many others
/// are open, so the line a plain store reads is not prefetched as a contiguous copy's is. One
/// core's streamed stores already take what memory gives, where plain stores into L3 gain
/// with every core. On the 2-core Zen 4 at 2 threads (float32, 32 MiB L3, (B, 64, 56, 56)),
/// streamed stores ran at what the host's memory gave at the time, 56 GB/s in busy hours and
/// 100-108 in quiet ones, whatever B; plain stores from L3 at 66-135 for NCHW -> nChw16c
/// (tiles of 16 input rows), nChw16c -> NCHW and NHWC -> NCHW (input rows that follow each
/// other) up to B = 20 (15.3 MiB out), at 22-25 either way from B = 24 (18.4 MiB: input and
/// output past the L3). NCHW -> NHWC, whose tiles read 64 channels 12.5 KB apart, gained
/// nothing and lost in most runs: plain against streamed, the same process alternating, 45
/// against 56 at B = 16 and 35 against 53 at B = 14 in a busy hour, 60 against 84 and 94
/// against 106 at B = 16 in quieter ones (one run of plain ones 92-96 against 56 at B = 14).
/// The bench's rows at B = 16 (12.25 MiB), one run each way twice: the blocked conversions
/// 53-55 -> 86-90 GB/s (0.57-0.72x torch's plain stores -> 0.88-0.96x), NHWC -> NCHW 54-56
/// -> 57-69. At 1 thread B = 16 ran 12 / 17 / 34 / 35 plain against 51 / 54 / 53 / 55
/// streamed (NCHW -> NHWC / NHWC -> NCHW / the blocked ones). With a far L3, the size of L2,
/// and more than half an L2 per thread (input and output then take more than an L2 on each
/// core: [`flat_output_streams`]'s rule).
pub fn transposing_copy_from(threads: usize, input_rows: usize) -> usize {
    let sizes = cache::sizes();
    match last_level() {
        LastLevel::Near if threads > 1 && input_rows > MANY_INPUT_ROWS => {
            (sizes.l3 / 8 * 3).max(4 * sizes.l2)
        }
        LastLevel::Near if threads > 1 => (sizes.l3 / 2).max(4 * sizes.l2),
        LastLevel::Near => (sizes.l3 / 4).max(4 * sizes.l2),
        LastLevel::Far => sizes.l2.max((sizes.l2 / 2).saturating_mul(threads) + 1),
    }
}

/// "1 core", "16 cores" ([`threads_sharing`]'s count: the loop's threads, at most the cores).
fn cores_text(cores: usize) -> String {
    if cores == 1 {
        "1 core".to_string()
    } else {
        format!("{cores} cores")
    }
}

/// Output bytes per run (a strip's 16 columns merged where `adjacent` in the output) from
/// which a streamed strip or tile whose columns are not line-aligned is staged (transposed into
/// scratch, then streamed out in whole lines) rather than stored plainly (`usize::MAX`:
/// never). The measurements below staged 16 columns at a time; the permuting copy now
/// stages whole tiles (`raw::tile_image`), where runs that meet in the output meet in
/// scratch too: on the Xeon that took the "apart" cases further (the (78, 80, 85, 16) copy to
/// 15.8 GB/s) and, measured again, left adjacent columns better plain ((742, 14, 822) by
/// (0, 2, 1) and (7, 72, 19, 19, 51) by (3, 1, 0, 4, 2) gained 1.1-1.4x staged at 1 thread,
/// but lost 0.8-0.9x at 2, where the input came from L3). On the Zen 4 (1 thread, 8M
/// float32): 14 rows of adjacent columns (896-byte runs) 27% -> 44% of the copy limit, 15
/// rows (960) 28% -> 37%, but 78 rows of columns apart (312-byte runs) 35% -> 24%, 5 rows of
/// adjacent columns (320) 15% -> 11%: 512 bytes there. On the Intel Xeon, runs of columns
/// apart gained at every length tried — the 312-byte runs of (78, 80, 85, 16) by
/// (1, 3, 2, 0) 5.5 -> 7.8 GB/s, the 28-byte runs of the
/// (9, 1449, 86, 7) reversal 5.0 -> 8.5 — while adjacent columns, whose runs follow each other
/// through the whole output, lost at every length: (20, 25, 38, 5, 4, 19) by
/// (0, 1, 2, 4, 5, 3) (320-byte runs) 7.3 -> 3.4 GB/s, (742, 14, 822) by (0, 2, 1) (896)
/// 9.7 -> 8.3. Plain stores written in order have their lines' reads prefetched as a
/// contiguous copy's are.
pub fn staged_run(adjacent: bool) -> usize {
    match (last_level(), adjacent) {
        (LastLevel::Far, false) => 0,
        (LastLevel::Far, true) => usize::MAX,
        (LastLevel::Near, _) => 512,
    }
}

/// For `explain()`: whether a transposing copy of `numel` elements whose tiles read
/// `input_rows` rows apart ([`PERMUTING_COPY_ROWS`] for the permuting copy) streams its stores
/// (`streamed`), against the threshold ([`transposing_copy_from`]) its output was compared
/// with.
pub fn describe(streamed: bool, numel: usize, input_rows: usize) -> String {
    let threads = threads_sharing(numel);
    let from = transposing_copy_from(threads, input_rows);
    let cache = match last_level() {
        LastLevel::Near => format!(
            "near last-level cache: a quarter of it on 1 core, half on more (3/8 for tiles \
             reading more than {MANY_INPUT_ROWS} input rows apart, {}), at least 4 L2s; on {}",
            if input_rows == PERMUTING_COPY_ROWS {
                "as the permuting copy's count".to_string()
            } else if input_rows > MANY_INPUT_ROWS {
                format!("as these read {input_rows}")
            } else {
                "not these".to_string()
            },
            cores_text(threads)
        ),
        LastLevel::Far => format!(
            "far last-level cache (Intel): an L2, and more than half an L2 per core, on {}",
            cores_text(threads)
        ),
    };
    if streamed {
        format!(
            "non-temporal stores (the output is at least {} KiB; {cache})",
            from >> 10
        )
    } else {
        format!(
            "ordinary stores (the output is under {} KiB; {cache})",
            from >> 10
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendor_picks_the_last_level() {
        let intel = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n";
        assert_eq!(from_cpuinfo(intel), LastLevel::Far);
        let amd = "processor\t: 0\nvendor_id\t: AuthenticAMD\n";
        assert_eq!(from_cpuinfo(amd), LastLevel::Near);
        assert_eq!(from_cpuinfo(""), LastLevel::Near);
        // arm64's cpuinfo has no vendor_id line
        assert_eq!(
            from_cpuinfo("processor\t: 0\nCPU implementer\t: 0x41\n"),
            LastLevel::Near
        );
    }

    #[test]
    fn thresholds_follow_the_caches() {
        let sizes = cache::sizes();
        match last_level() {
            LastLevel::Far => {
                for rows in [1, 64] {
                    assert_eq!(transposing_copy_from(1, rows), sizes.l2);
                    assert_eq!(transposing_copy_from(2, rows), sizes.l2 + 1);
                    assert_eq!(transposing_copy_from(16, rows), 8 * sizes.l2 + 1);
                }
                // the output against a quarter of the L3, whatever the bytes moved
                assert!(flat_output_streams(sizes.l3 / 4 + 1, sizes.l3 / 4 + 1));
                assert!(!flat_output_streams(sizes.l3 / 4, 4 * sizes.l3));
            }
            LastLevel::Near => {
                for rows in [1, MANY_INPUT_ROWS, MANY_INPUT_ROWS + 1] {
                    assert!(transposing_copy_from(1, rows) >= 4 * sizes.l2);
                    assert!(transposing_copy_from(2, rows) >= transposing_copy_from(1, rows));
                    assert_eq!(
                        transposing_copy_from(16, rows),
                        transposing_copy_from(2, rows)
                    );
                }
                // tiles of many input rows apart keep their output out of the L3 sooner
                assert!(transposing_copy_from(2, 64) < transposing_copy_from(2, 16));
                assert_eq!(
                    transposing_copy_from(1, 64),
                    transposing_copy_from(1, 1),
                    "one thread: a quarter either way"
                );
                assert!(flat_output_streams(sizes.l3 / 2 + 1, sizes.l3 + 2));
                assert!(!flat_output_streams(sizes.l3 / 2, sizes.l3));
            }
        }
    }

    /// A plan's output streams when large enough by the flat rule, and never when an input
    /// reaches its memory (an in-place op) or the plan has two outputs.
    #[test]
    fn elementwise_outputs_stream_unless_an_input_shares_them() {
        use crate::{Array, DType, MemoryFormat, TensorIteratorConfig};
        let sizes = cache::sizes();
        // enough elements for either rule (f32 out and two f32 inputs: 12 bytes moved each)
        let n = match last_level() {
            LastLevel::Near => sizes.l3 / 12 + 1,
            LastLevel::Far => sizes.l3 / 16 + 1,
        };
        let wide = Array::empty(&[n], DType::F32, MemoryFormat::Contiguous).unwrap();
        let input = || Array::empty(&[n], DType::F32, MemoryFormat::Contiguous).unwrap();
        let one = Array::empty(&[1], DType::F32, MemoryFormat::Contiguous).unwrap();
        let streams = |plan: &TensorIterator| elementwise_streams_on(plan);
        let plan = |outputs: Vec<Option<Array>>, inputs: Vec<Array>| {
            let mut config = TensorIteratorConfig::new();
            for out in outputs {
                config.add_output(out);
            }
            for a in inputs {
                config.add_input(a);
            }
            config.build().unwrap()
        };
        assert!(streams(&plan(vec![None], vec![input(), input()])));
        assert!(streams(&plan(
            vec![Some(wide.clone())],
            vec![input(), input()]
        )));
        // in place: the output is an input
        assert!(!streams(&plan(
            vec![Some(wide.clone())],
            vec![wide.clone(), input()]
        )));
        assert!(!streams(&plan(vec![None, None], vec![input(), input()])));
        // a broadcast input moves its own elements only: with a near last level the three
        // operands would not fit it, the two that take memory do
        let bias = one.expand(&[n as i64]).unwrap();
        let biased = plan(vec![Some(wide.clone())], vec![input(), bias]);
        assert_eq!(streams(&biased), last_level() == LastLevel::Far);
        // a few elements: never
        let small = || one.expand(&[16]).unwrap();
        assert!(!streams(&plan(vec![None], vec![small(), small()])));
        // a bool output of float32 inputs: a ninth of the bytes moved
        let flags = Array::empty(&[n], DType::Bool, MemoryFormat::Contiguous).unwrap();
        let mut config = TensorIteratorConfig::new();
        config.check_all_same_dtype(false);
        config
            .add_output(Some(flags))
            .add_input(input())
            .add_input(input());
        assert!(!streams(&config.build().unwrap()));
    }
}
