//! Property tests of the pure layout functions: each predicate or view op is checked against a
//! brute-force model built from the list of element offsets a layout addresses
//! (`ferroiter::array::element_offsets`, row-major order).
//!
//! Sizes are kept small (≤ 4 per dim, rank ≤ 5) so that enumerating every element is cheap and
//! the whole file runs in well under a second in a debug build (see `config` for more cases).

use ferroiter::array::{element_offsets, preserve_strides, Array};
use ferroiter::dtype::{can_cast, promote_types, DType};
use ferroiter::layout::{IndexItem, Layout};
use ferroiter::memory_format::{
    contiguous_strides, format_strides, infer_dense_strides, is_contiguous, is_contiguous_as,
    is_non_overlapping_and_dense, MemoryFormat,
};
use ferroiter::shape::{broadcast_shapes, infer_size};
use ferroiter::strides::ambiguity_aware_sort;
use proptest::prelude::*;
use proptest::sample::Index;

// ---------------------------------------------------------------------------------------------
// Brute-force helpers
// ---------------------------------------------------------------------------------------------

/// Every element offset of `layout`, in row-major order of its logical indices.
fn offsets(layout: &Layout) -> Vec<isize> {
    element_offsets(layout).collect()
}

/// Every multi-index of `shape`, in row-major order (one empty index for a 0-d shape).
fn multi_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &n in shape {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                (0..n).map(move |i| {
                    let mut v = prefix.clone();
                    v.push(i);
                    v
                })
            })
            .collect();
    }
    out
}

/// Row-major position of `index` in `shape`.
fn ravel(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (&i, &n)| {
        assert!(i < n, "index {index:?} out of shape {shape:?}");
        acc * n + i
    })
}

/// The offsets a view of `orig` with shape `out_shape` must address, given for each of its
/// multi-indices the multi-index of `orig` it denotes.
fn gather(
    orig: &Layout,
    out_shape: &[usize],
    source: impl Fn(&[usize]) -> Vec<usize>,
) -> Vec<isize> {
    let base = offsets(orig);
    multi_indices(out_shape)
        .iter()
        .map(|idx| base[ravel(&source(idx), &orig.shape)])
        .collect()
}

/// Whether the sorted offsets are exactly `0, 1, …, len-1`.
fn is_permutation_of_range(offsets: &[isize]) -> bool {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    sorted.iter().enumerate().all(|(i, &o)| o == i as isize)
}

/// Dense strides for `shape` laid out in `order` (fastest dim first), zero sizes counted as 1.
fn dense_strides_in_order(shape: &[usize], order: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for &d in order {
        strides[d] = acc;
        acc *= shape[d].max(1) as isize;
    }
    strides
}

/// Strides for `shape` under which the row-major walk visits exactly the offsets of `orig`, if
/// any exist: a dim of size > 1 can only have the step between its first two elements as its
/// stride, so derive those and check every element.
fn viewable_brute_force(orig: &Layout, shape: &[usize]) -> Option<Vec<isize>> {
    let base = offsets(orig);
    if base.is_empty() {
        return Some(contiguous_strides(shape).to_vec());
    }
    let strides: Vec<isize> = (0..shape.len())
        .map(|d| {
            if shape[d] < 2 {
                return 0;
            }
            let mut unit = vec![0; shape.len()];
            unit[d] = 1;
            base[ravel(&unit, shape)] - base[0]
        })
        .collect();
    let candidate = Layout {
        shape: shape.into(),
        strides: strides.into(),
        offset: base[0],
    };
    (offsets(&candidate) == base).then_some(candidate.strides.to_vec())
}

/// Python's `range(len)[start:stop:step]`, written as the literal loop of the language reference.
fn python_slice(len: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<usize> {
    let n = len as i64;
    let norm = |v: i64, lo: i64, hi: i64| (if v < 0 { v + n } else { v }).clamp(lo, hi);
    let mut out = Vec::new();
    if step > 0 {
        let mut i = start.map_or(0, |v| norm(v, 0, n));
        let stop = stop.map_or(n, |v| norm(v, 0, n));
        while i < stop {
            out.push(i as usize);
            i += step;
        }
    } else {
        let mut i = start.map_or(n - 1, |v| norm(v, -1, n - 1));
        let stop = stop.map_or(-1, |v| norm(v, -1, n - 1));
        while i > stop {
            out.push(i as usize);
            i += step;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

/// A shape of rank ≤ `max_rank` with sizes ≤ `max_size`, size 1 (torch's corner case: its stride
/// is ignored) drawn more often than the others.
fn arb_shape(max_rank: usize, max_size: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![2 => 0..=max_size, 1 => Just(1)], 0..=max_rank)
}

/// Strides for `shape`: fully random in `lo..=hi`; dense, row-major or in a random dim order,
/// where size-1 dims may get an arbitrary stride (torch ignores it); dense in a random order
/// with one stride nudged; row-major with random signs. So both sides of every predicate and
/// the odd corners (size-1 strides, negative and zero strides) are all hit.
fn arb_strides_for(shape: Vec<usize>, lo: isize, hi: isize) -> impl Strategy<Value = Vec<isize>> {
    let n = shape.len();
    let order = Just((0..n).collect::<Vec<usize>>()).prop_shuffle();
    let junk = prop::collection::vec(lo..=hi, n);
    let (s1, s2, s3) = (shape.clone(), shape.clone(), shape.clone());
    prop_oneof![
        prop::collection::vec(lo..=hi, n),
        (order.clone(), junk.clone(), any::<bool>(), any::<bool>()).prop_map(
            move |(order, junk, row_major, odd_ones)| {
                let order = if row_major {
                    (0..order.len()).rev().collect()
                } else {
                    order
                };
                let mut s = dense_strides_in_order(&s1, &order);
                for d in 0..s.len() {
                    if odd_ones && s1[d] == 1 {
                        s[d] = junk[d].max(0);
                    }
                }
                s
            }
        ),
        (order, any::<Index>(), prop_oneof![Just(-1isize), Just(1)]).prop_map(
            move |(order, which, delta)| {
                let mut s = dense_strides_in_order(&s2, &order);
                if !s.is_empty() {
                    let d = which.index(s.len());
                    s[d] = (s[d] + delta).max(0);
                }
                s
            }
        ),
        junk.prop_map(move |j| {
            // Row-major but with random signs: negative strides in a dense block.
            contiguous_strides(&s3)
                .iter()
                .zip(j)
                .map(|(&s, r)| if r < 0 { -s } else { s })
                .collect()
        }),
    ]
}

/// A layout of rank ≤ `max_rank`, sizes ≤ `max_size`, strides in `lo..=hi` (see
/// `arb_strides_for`) and an arbitrary storage offset.
fn arb_layout(
    max_rank: usize,
    max_size: usize,
    lo: isize,
    hi: isize,
) -> impl Strategy<Value = Layout> {
    arb_shape(max_rank, max_size)
        .prop_flat_map(move |shape| {
            (
                Just(shape.clone()),
                arb_strides_for(shape, lo, hi),
                -16isize..=16,
            )
        })
        .prop_map(|(shape, strides, offset)| Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset,
        })
}

/// Random material for one key item: (kind, int position, slice start, slice stop, slice step).
type RawKeyItem = (u8, Index, Option<i8>, Option<i8>, i8);

/// A random `__getitem__` key for a layout of `shape`, built from raw random material: first
/// the kinds of the items (at most `shape.len()` that consume a dim) and where the `...` goes,
/// then each int is drawn in range for the dim it actually lands on.
fn build_key(shape: &[usize], raw: &[RawKeyItem], ellipsis_at: Option<Index>) -> Vec<IndexItem> {
    let mut raw: Vec<_> = raw.to_vec();
    let mut consuming = 0;
    raw.retain(|item| {
        let keep = item.0 % 4 == 0 || consuming < shape.len();
        consuming += usize::from(item.0 % 4 != 0 && keep);
        keep
    });
    let ellipsis_at = ellipsis_at.map(|at| at.index(raw.len() + 1));
    let mut key = Vec::new();
    let mut dim = 0;
    for (pos, &(kind, pick, start, stop, step)) in raw.iter().enumerate() {
        if ellipsis_at == Some(pos) {
            key.push(IndexItem::Ellipsis);
            dim += shape.len() - consuming;
        }
        if kind % 4 == 0 {
            key.push(IndexItem::NewAxis);
            continue;
        }
        let size = shape[dim];
        if kind % 4 == 1 && size > 0 {
            // An in-range int, sometimes written negatively.
            let i = pick.index(size) as i64;
            key.push(IndexItem::Int(if kind % 8 == 1 {
                i
            } else {
                i - size as i64
            }));
        } else {
            let step = if step == 0 {
                None
            } else {
                Some(i64::from(step))
            };
            key.push(IndexItem::Slice {
                start: start.map(i64::from),
                stop: stop.map(i64::from),
                step,
            });
        }
        dim += 1;
    }
    if ellipsis_at == Some(raw.len()) {
        key.push(IndexItem::Ellipsis);
    }
    key
}

fn all_dtypes() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/// 256 cases per property (the file runs in well under a second in a debug build);
/// `PROPTEST_CASES=20000 cargo test --test layout_props` runs a longer search. Failures are
/// not persisted to disk: proptest prints the shrunk counterexample instead.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// A new array of any format is laid out by that format's formula, so it is contiguous in
    /// that format and non-overlapping-and-dense; when it has elements, they occupy each slot
    /// of `[0, numel)` exactly once (the formulas are mixed-radix numberings).
    #[test]
    fn new_arrays_are_dense_in_their_format(
        format in prop::sample::select(vec![
            MemoryFormat::Contiguous, MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d,
        ]),
        sizes in prop::collection::vec(0usize..=4, 5),
        rank in 0usize..=5,
    ) {
        let rank = match format {
            MemoryFormat::ChannelsLast => 4,
            MemoryFormat::ChannelsLast3d => 5,
            _ => rank,
        };
        let shape = &sizes[..rank];
        let strides = format_strides(shape, format).unwrap();
        let array = Array::empty(shape, DType::F32, format).unwrap();
        prop_assert_eq!(array.strides(), &strides[..]);
        prop_assert!(is_contiguous_as(shape, &strides, format).unwrap());
        prop_assert!(is_non_overlapping_and_dense(shape, &strides));
        if format == MemoryFormat::Contiguous {
            prop_assert_eq!(&strides, &contiguous_strides(shape));
        }
        let layout = array.layout();
        if layout.numel() > 0 {
            let offs = offsets(layout);
            prop_assert!(is_permutation_of_range(&offs), "offsets {:?}", offs);
        }
    }

    /// A channels-last formula at the wrong rank is refused, as torch does.
    #[test]
    fn channels_last_needs_its_rank(shape in arb_shape(6, 3)) {
        prop_assert_eq!(format_strides(&shape, MemoryFormat::ChannelsLast).is_ok(), shape.len() == 4);
        prop_assert_eq!(format_strides(&shape, MemoryFormat::ChannelsLast3d).is_ok(), shape.len() == 5);
        prop_assert!(format_strides(&shape, MemoryFormat::Preserve).is_err());
    }

    /// With non-negative strides, "non-overlapping and dense" means exactly that the element
    /// offsets are a permutation of `0..numel` (torch's stride-sort check is a fast way to
    /// decide whether the layout is a mixed-radix numbering of a dense block).
    #[test]
    fn non_overlapping_and_dense_matches_brute_force(layout in arb_layout(5, 4, 0, 12)) {
        let at_zero = Layout { offset: 0, ..layout };
        let expected = is_permutation_of_range(&offsets(&at_zero));
        prop_assert_eq!(
            is_non_overlapping_and_dense(&at_zero.shape, &at_zero.strides), expected,
            "shape {:?} strides {:?}", at_zero.shape, at_zero.strides
        );
    }

    /// torch's default contiguity: no elements, or the row-major walk of the elements visits
    /// offsets 0, 1, 2, … in order (strides of size-1 dims never matter).
    #[test]
    fn is_contiguous_matches_brute_force(layout in arb_layout(5, 4, -6, 12)) {
        let at_zero = Layout { offset: 0, ..layout };
        let offs = offsets(&at_zero);
        let expected = offs.is_empty() || offs.iter().enumerate().all(|(i, &o)| o == i as isize);
        prop_assert_eq!(is_contiguous(&at_zero.shape, &at_zero.strides), expected,
            "shape {:?} strides {:?}", at_zero.shape, at_zero.strides);
        prop_assert_eq!(at_zero.is_contiguous(MemoryFormat::Contiguous).unwrap(), expected);
    }

    /// `infer_dense_strides` assigns strides along a permutation of the dims with a running
    /// product of sizes, so whatever strides it is given (negative, zero, overlapping), the
    /// result is a dense numbering of the same shape.
    #[test]
    fn infer_dense_strides_is_dense(layout in arb_layout(5, 4, -8, 12)) {
        let dense = infer_dense_strides(&layout.shape, &layout.strides);
        prop_assert_eq!(dense.len(), layout.shape.len());
        prop_assert!(is_non_overlapping_and_dense(&layout.shape, &dense),
            "shape {:?} strides {:?} -> {:?}", layout.shape, layout.strides, dense);
        let out = Layout { shape: layout.shape.clone(), strides: dense.into(), offset: 0 };
        if out.numel() > 0 {
            prop_assert!(is_permutation_of_range(&offsets(&out)));
        }
    }

    /// For a layout that is already non-overlapping and dense with positive strides on its
    /// size>1 dims, the dense strides inferred from it keep the same dim order, so they are the
    /// same strides wherever the size is > 1 (torch's preserve rule relies on this).
    #[test]
    fn infer_dense_strides_keeps_dense_order(
        shape in prop::collection::vec(1usize..=4, 0..=5),
        order_seed in Just((0..5).collect::<Vec<usize>>()).prop_shuffle(),
    ) {
        let order: Vec<usize> = order_seed.into_iter().filter(|&d| d < shape.len()).collect();
        let strides = dense_strides_in_order(&shape, &order);
        let dense = infer_dense_strides(&shape, &strides);
        for d in 0..shape.len() {
            if shape[d] > 1 {
                prop_assert_eq!(dense[d], strides[d], "shape {:?} strides {:?} -> {:?}", shape, strides, dense);
            }
        }
    }

    /// torch's preserve rule (`empty_like`, `clone`): a non-overlapping-and-dense source keeps
    /// its exact strides, any other gets `infer_dense_strides`; either way the result is dense.
    #[test]
    fn preserve_strides_are_dense(layout in arb_layout(5, 4, -8, 12)) {
        let strides = preserve_strides(&layout);
        prop_assert!(is_non_overlapping_and_dense(&layout.shape, &strides),
            "{:?} -> {:?}", layout, strides);
        if layout.is_non_overlapping_and_dense() {
            prop_assert_eq!(&strides, &layout.strides.to_vec());
        }
    }

    /// `permute` reorders the index: element `i` of the view is element `j` of the source with
    /// `j[dims[k]] = i[k]`.
    #[test]
    fn permute_matches_brute_force(
        (layout, perm, negate) in arb_layout(4, 4, -8, 8).prop_flat_map(|l| {
            let n = l.shape.len();
            (Just(l), Just((0..n).collect::<Vec<usize>>()).prop_shuffle(), prop::collection::vec(any::<bool>(), n))
        })
    ) {
        let n = layout.shape.len() as i64;
        let dims: Vec<i64> = perm.iter().zip(&negate).map(|(&d, &neg)| if neg { d as i64 - n } else { d as i64 }).collect();
        let view = layout.permute(&dims).unwrap();
        let shape: Vec<usize> = perm.iter().map(|&d| layout.shape[d]).collect();
        prop_assert_eq!(&view.shape.to_vec(), &shape);
        let expected = gather(&layout, &shape, |i| {
            let mut src = vec![0; i.len()];
            for (k, &d) in perm.iter().enumerate() {
                src[d] = i[k];
            }
            src
        });
        prop_assert_eq!(offsets(&view), expected);
    }

    /// `transpose(a, b)` is the permutation that swaps `a` and `b`.
    #[test]
    fn transpose_matches_brute_force(layout in arb_layout(4, 4, -8, 8), a in any::<Index>(), b in any::<Index>()) {
        let n = layout.shape.len();
        if n == 0 {
            // A 0-d array accepts dims 0 and -1, and transposing it changes nothing.
            prop_assert_eq!(layout.transpose(0, -1).unwrap(), layout);
            return Ok(());
        }
        let (a, b) = (a.index(n), b.index(n));
        let view = layout.transpose(a as i64, b as i64 - n as i64).unwrap();
        let mut shape = layout.shape.clone();
        shape.swap(a, b);
        prop_assert_eq!(&view.shape, &shape);
        let expected = gather(&layout, &shape, |i| {
            let mut src = i.to_vec();
            src.swap(a, b);
            src
        });
        prop_assert_eq!(offsets(&view), expected);
    }

    /// `expand` repeats size-1 dims and adds leading dims: element `i` of the view is element
    /// `i` of the source right-aligned, with 0 on every dim the source has as size 1.
    #[test]
    fn expand_matches_brute_force(
        layout in arb_layout(4, 3, -8, 8),
        lead in prop::collection::vec(0usize..=3, 0..=2),
        choices in prop::collection::vec((any::<bool>(), 0usize..=3), 4),
    ) {
        let n = layout.shape.len();
        let mut target: Vec<i64> = lead.iter().map(|&s| s as i64).collect();
        for (&n_d, &(keep, size)) in layout.shape.iter().zip(&choices) {
            target.push(if keep { -1 } else if n_d == 1 { size as i64 } else { n_d as i64 });
        }
        let view = layout.expand(&target, "torch.FloatTensor").unwrap();
        let shape: Vec<usize> = target
            .iter()
            .enumerate()
            .map(|(i, &t)| if t == -1 { layout.shape[i - lead.len()] } else { t as usize })
            .collect();
        prop_assert_eq!(&view.shape.to_vec(), &shape);
        let expected = gather(&layout, &shape, |i| {
            (0..n).map(|d| if layout.shape[d] == 1 { 0 } else { i[lead.len() + d] }).collect()
        });
        prop_assert_eq!(offsets(&view), expected);
    }

    /// `unsqueeze(d)` inserts a size-1 dim: element `i` of the view is `i` without its d-th entry.
    #[test]
    fn unsqueeze_matches_brute_force(layout in arb_layout(4, 4, -8, 8), pick in any::<Index>(), negative in any::<bool>()) {
        let n = layout.shape.len();
        let d = pick.index(n + 1);
        let view = layout.unsqueeze(if negative { d as i64 - (n as i64 + 1) } else { d as i64 }).unwrap();
        let mut shape = layout.shape.clone();
        shape.insert(d, 1);
        prop_assert_eq!(&view.shape, &shape);
        let expected = gather(&layout, &shape, |i| {
            let mut src = i.to_vec();
            src.remove(d);
            src
        });
        prop_assert_eq!(offsets(&view), expected);
    }

    /// `squeeze(dims)` drops the listed dims that have size 1 (and `squeeze()` all of them):
    /// element `i` of the view is `i` with a 0 put back at each dropped position.
    #[test]
    fn squeeze_matches_brute_force(
        layout in arb_layout(5, 2, -8, 8),
        all in any::<bool>(),
        mask in prop::collection::vec((any::<bool>(), any::<bool>()), 5),
    ) {
        let n = layout.shape.len();
        let listed: Vec<usize> = (0..n).filter(|&d| all || mask[d].0).collect();
        let dims: Vec<i64> = listed.iter().map(|&d| if mask[d].1 { d as i64 - n as i64 } else { d as i64 }).collect();
        let view = layout.squeeze(if all { None } else { Some(&dims) }).unwrap();
        let dropped: Vec<bool> = (0..n).map(|d| listed.contains(&d) && layout.shape[d] == 1).collect();
        let shape: Vec<usize> = (0..n).filter(|&d| !dropped[d]).map(|d| layout.shape[d]).collect();
        prop_assert_eq!(&view.shape.to_vec(), &shape);
        let expected = gather(&layout, &shape, |i| {
            let mut it = i.iter();
            (0..n).map(|d| if dropped[d] { 0 } else { *it.next().unwrap() }).collect()
        });
        prop_assert_eq!(offsets(&view), expected);
    }

    /// `view` never moves an element: when it succeeds, the row-major walk of the view visits
    /// the same offsets as the row-major walk of the source. It refuses only when no strides
    /// at all would do that (torch's `computeStride` is complete), so in particular a
    /// row-major source can always be viewed as any shape of the same numel.
    #[test]
    fn view_matches_brute_force(
        layout in arb_layout(4, 4, -8, 8),
        keys in prop::collection::vec(any::<u32>(), 12),
        cuts in prop::collection::vec(any::<bool>(), 12),
        ones in prop::collection::vec(any::<Index>(), 0..=2),
        shuffle in any::<bool>(),
        infer in prop::option::of(any::<Index>()),
    ) {
        let numel = layout.numel();
        // The target shape: the source's prime factors (in order, or shuffled), cut into
        // groups, with a few 1s inserted; a zero-numel source gets a 0 somewhere instead.
        let mut factors: Vec<usize> = Vec::new();
        for &s in &layout.shape {
            let mut s = s;
            for p in [2, 3] {
                while s > 1 && s % p == 0 {
                    factors.push(p);
                    s /= p;
                }
            }
        }
        if shuffle {
            let mut keyed: Vec<(u32, usize)> = keys.iter().copied().zip(factors).collect();
            keyed.sort();
            factors = keyed.into_iter().map(|(_, f)| f).collect();
        }
        let mut target: Vec<usize> = Vec::new();
        for (i, &f) in factors.iter().enumerate() {
            match target.last_mut() {
                Some(last) if !cuts[i] => *last *= f,
                _ => target.push(f),
            }
        }
        for at in &ones {
            target.insert(at.index(target.len() + 1), 1);
        }
        if numel == 0 {
            let at = keys[0] as usize % (target.len() + 1);
            target.insert(at, 0);
        }
        prop_assert_eq!(target.iter().product::<usize>(), numel);
        let mut request: Vec<i64> = target.iter().map(|&s| s as i64).collect();
        if let (Some(at), false) = (infer, request.is_empty() || numel == 0) {
            let at = at.index(request.len());
            request[at] = -1;
        }
        match layout.view(&request) {
            Ok(view) => {
                prop_assert_eq!(&view.shape.to_vec(), &target);
                prop_assert_eq!(offsets(&view), offsets(&layout));
            }
            Err(e) => {
                prop_assert!(
                    !is_contiguous(&layout.shape, &layout.strides),
                    "a contiguous layout {:?} refused view {:?}: {}", layout, request, e
                );
                let possible = viewable_brute_force(&layout, &target);
                prop_assert!(possible.is_none(), "{:?} refused view {:?} although strides {:?} work: {}",
                    layout, request, possible, e);
            }
        }
    }

    /// `__getitem__` with ints, slices (any step), `None` and `...` selects, per source dim, the
    /// positions Python's `range(n)[key]` would: element `i` of the view is the source element
    /// whose index is built from those selections.
    #[test]
    fn getitem_matches_brute_force(
        layout in arb_layout(4, 4, -8, 8),
        raw in prop::collection::vec(
            (any::<u8>(), any::<Index>(),
             prop::option::of(-6i8..=6), prop::option::of(-6i8..=6), -3i8..=3),
            0..=6,
        ),
        ellipsis_at in prop::option::of(any::<Index>()),
    ) {
        let key = build_key(&layout.shape, &raw, ellipsis_at);
        let view = layout.index(&key).unwrap();

        // Per output dim: the source dim it walks (None for a new axis) and the positions it
        // takes there; per source dim fixed by an int: that position.
        let n = layout.shape.len();
        let consumed = key.iter().filter(|k| matches!(k, IndexItem::Int(_) | IndexItem::Slice { .. })).count();
        let mut out_dims: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
        let mut fixed: Vec<Option<usize>> = vec![None; n];
        let mut dim = 0;
        for item in &key {
            match *item {
                IndexItem::Int(i) => {
                    let size = layout.shape[dim] as i64;
                    fixed[dim] = Some((if i < 0 { i + size } else { i }) as usize);
                    dim += 1;
                }
                IndexItem::Slice { start, stop, step } => {
                    out_dims.push((Some(dim), python_slice(layout.shape[dim], start, stop, step.unwrap_or(1))));
                    dim += 1;
                }
                IndexItem::NewAxis => out_dims.push((None, vec![0])),
                IndexItem::Ellipsis => {
                    for _ in 0..n - consumed {
                        out_dims.push((Some(dim), (0..layout.shape[dim]).collect()));
                        dim += 1;
                    }
                }
            }
        }
        for d in dim..n {
            out_dims.push((Some(d), (0..layout.shape[d]).collect()));
        }
        let shape: Vec<usize> = out_dims.iter().map(|(_, pos)| pos.len()).collect();
        prop_assert_eq!(&view.shape.to_vec(), &shape, "key {:?}", key);
        let expected = gather(&layout, &shape, |i| {
            let mut src: Vec<usize> = fixed.iter().map(|f| f.unwrap_or(0)).collect();
            for (k, (source, pos)) in out_dims.iter().enumerate() {
                if let Some(d) = source {
                    src[*d] = pos[i[k]];
                }
            }
            src
        });
        prop_assert_eq!(offsets(&view), expected, "key {:?}", key);
    }

    /// Broadcasting compares right-aligned pairs independently and each pair's rule is
    /// symmetric, so the result (and whether there is one) does not depend on the order.
    #[test]
    fn broadcast_is_commutative(a in arb_shape(4, 3), b in arb_shape(4, 3)) {
        let ab = broadcast_shapes(&[a.clone(), b.clone()]);
        let ba = broadcast_shapes(&[b, a]);
        prop_assert_eq!(ab.is_ok(), ba.is_ok());
        if let (Ok(ab), Ok(ba)) = (ab, ba) {
            prop_assert_eq!(ab, ba);
        }
    }

    /// `infer_size(a, b)` succeeds exactly when every right-aligned pair of sizes (missing dims
    /// counting as 1) is equal or has a 1, and then takes the non-1 size of each pair.
    #[test]
    fn infer_size_rule(a in arb_shape(4, 3), b in arb_shape(4, 3)) {
        let n = a.len().max(b.len());
        let pad = |s: &[usize]| -> Vec<usize> { std::iter::repeat_n(1, n - s.len()).chain(s.iter().copied()).collect() };
        let (pa, pb) = (pad(&a), pad(&b));
        let ok = pa.iter().zip(&pb).all(|(&x, &y)| x == y || x == 1 || y == 1);
        match infer_size(&a, &b) {
            Ok(out) => {
                prop_assert!(ok, "{:?} {:?} broadcast to {:?}", a, b, out);
                let want: Vec<usize> = pa.iter().zip(&pb).map(|(&x, &y)| if x == 1 { y } else { x }).collect();
                prop_assert_eq!(out, want);
            }
            Err(e) => prop_assert!(!ok, "{:?} {:?} refused: {}", a, b, e),
        }
    }

    /// The insertion sort only ever swaps entries of `perm`, so whatever the comparator says
    /// (even an inconsistent one) the result is a permutation of `0..n`.
    #[test]
    fn ambiguity_aware_sort_is_a_permutation(
        n in 0usize..=8,
        table in prop::collection::vec(-1i32..=1, 64),
        stream in prop::collection::vec(-1i32..=1, 1..=40),
        stateful in any::<bool>(),
    ) {
        let perm = if stateful {
            let mut calls = 0usize;
            ambiguity_aware_sort(n, |_, _| {
                calls += 1;
                stream[calls % stream.len()]
            })
        } else {
            ambiguity_aware_sort(n, |a, b| table[a * 8 + b])
        };
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..n).collect::<Vec<usize>>(), "perm {:?}", perm);
    }

    /// torch's promotion table is symmetric with itself on the diagonal, and promotion never
    /// goes to a type one of the inputs cannot be cast to safely.
    #[test]
    fn promotion_laws(a in all_dtypes(), b in all_dtypes()) {
        // (uint16/32/64 mix only with themselves and real floats: an error both ways round)
        prop_assert_eq!(promote_types(a, b).is_ok(), promote_types(b, a).is_ok());
        let Ok(ab) = promote_types(a, b) else { return Ok(()) };
        prop_assert_eq!(ab, promote_types(b, a).unwrap());
        prop_assert_eq!(promote_types(a, a).unwrap(), a);
        prop_assert!(can_cast(a, ab), "{} cannot be cast to promote_types({}, {}) = {}", a, a, b, ab);
        prop_assert!(can_cast(b, ab), "{} cannot be cast to promote_types({}, {}) = {}", b, a, b, ab);
    }
}
