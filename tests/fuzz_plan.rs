//! Fuzzing the planner and the executor with random layouts (issue 13).
//!
//! Random shapes, strides (negative, zero, overlapping), storage offsets, dtypes and op choices
//! go to `Array::from_parts`, the iterator build and the kernels. The checks never trust the
//! planner: the bounds of every view and every address the executor hands out are computed
//! here, from the shape, strides and offset, and compared with the storage's size.
//!
//! - `views_accept_exactly_the_layouts_inside_their_storage`: `from_parts` accepts a non-empty
//!   layout iff its lowest and highest element (computed here) lie in the storage.
//! - `the_walk_visits_every_element_once_inside_bounds`: `for_each` over a plan of 1–3 inputs
//!   (and a given or allocated output) hands out, for each logical element of the broadcast
//!   shape, exactly one tuple of addresses — the ones the layouts give — and every address lies
//!   inside its operand's storage, aligned.
//! - `kernels_do_not_depend_on_the_layout`: an elementwise op, a reduction or a conversion
//!   gives the same dtype, shape and values on a random strided view as on a contiguous copy
//!   of it (or the same error), and never panics.
//!
//! Budget: 256 cases per property (the CI); `PROPTEST_CASES=N` runs N (the nightly).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ferroiter::exec::{for_each, Block};
use ferroiter::kernels::reduce::{reduction, ReduceOp};
use ferroiter::kernels::{binary, unary, Arg, BinaryOp, UnaryOp};
use ferroiter::storage::Storage;
use ferroiter::{Array, DType, Layout, MemoryFormat, Scalar, TensorIteratorConfig};
use proptest::prelude::*;

/// Cases per property: `PROPTEST_CASES` when set (nightly), else 256 (CI).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

/// The storable dtypes.
fn dtypes() -> Vec<DType> {
    DType::ALL.into_iter().filter(|d| d.is_storable()).collect()
}

/// Lowest and highest element offset (relative to the storage offset) a layout reaches, or
/// None when it has no element. Computed here, not by the crate.
fn reach(shape: &[usize], strides: &[isize]) -> Option<(i128, i128)> {
    if shape.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&n, &s) in shape.iter().zip(strides) {
        let far = s as i128 * (n as i128 - 1);
        if far < 0 {
            lo += far;
        } else {
            hi += far;
        }
    }
    Some((lo, hi))
}

/// One element of value `v` as the bytes of `dtype`.
fn element_bytes(dtype: DType, v: i32) -> Vec<u8> {
    let f = v as f32;
    match dtype {
        DType::Bool => vec![(v & 1) as u8],
        DType::U8 => vec![v as u8],
        DType::U16 => (v as u16).to_le_bytes().to_vec(),
        DType::U32 => (v as u32).to_le_bytes().to_vec(),
        DType::U64 => (v as u64).to_le_bytes().to_vec(),
        DType::I8 => vec![v as i8 as u8],
        DType::I16 => (v as i16).to_le_bytes().to_vec(),
        DType::I32 => v.to_le_bytes().to_vec(),
        DType::I64 => (v as i64).to_le_bytes().to_vec(),
        DType::F16 => half::f16::from_f32(f / 4.0).to_le_bytes().to_vec(),
        DType::BF16 => half::bf16::from_f32(f / 4.0).to_le_bytes().to_vec(),
        DType::F32 => (f / 4.0).to_le_bytes().to_vec(),
        DType::F64 => (f as f64 / 4.0).to_le_bytes().to_vec(),
        DType::ComplexHalf => [half::f16::from_f32(f).to_le_bytes(), [0, 0]].concat(),
        DType::C64 => [(f / 4.0).to_le_bytes(), (-f).to_le_bytes()].concat(),
        DType::C128 => [(f as f64 / 4.0).to_le_bytes(), (-f as f64).to_le_bytes()].concat(),
    }
}

/// A storage of `n` elements of `dtype` holding small varied values.
fn filled_storage(dtype: DType, n: usize, seed: i32) -> Arc<Storage> {
    let storage = Storage::alloc(n * dtype.itemsize()).unwrap();
    for i in 0..n {
        let v = ((i as i32).wrapping_mul(7).wrapping_add(seed)).rem_euclid(11) - 5;
        storage
            .write(i * dtype.itemsize(), &element_bytes(dtype, v))
            .unwrap();
    }
    storage
}

/// A view recipe: per-dim strides in elements (any sign, zero included) and the slack around
/// the reached elements (`pad_lo` below, `pad_hi` above); `shift` moves the offset off its
/// in-bounds value (0 keeps it valid).
#[derive(Debug, Clone)]
struct ViewRecipe {
    strides: Vec<isize>,
    pad_lo: usize,
    pad_hi: usize,
    shift: isize,
}

fn view_recipe(rank: usize) -> impl Strategy<Value = ViewRecipe> {
    (
        prop::collection::vec(-6isize..=6, rank),
        0usize..3,
        0usize..3,
        prop_oneof![8 => Just(0isize), 1 => -3isize..=3],
    )
        .prop_map(|(strides, pad_lo, pad_hi, shift)| ViewRecipe {
            strides,
            pad_lo,
            pad_hi,
            shift,
        })
}

/// The view `recipe` describes over a fresh storage, with the storage's element count and
/// whether the layout lies inside it (by this file's own arithmetic); `from_parts`'s answer.
fn make_view(
    dtype: DType,
    shape: &[usize],
    recipe: &ViewRecipe,
    seed: i32,
) -> (ferroiter::Result<Array>, bool) {
    let (lo, hi) = reach(shape, &recipe.strides).unwrap_or((0, 0));
    let offset = -lo + recipe.pad_lo as i128 + recipe.shift as i128;
    let elements = (hi - lo) as usize + 1 + recipe.pad_lo + recipe.pad_hi;
    let inside = match reach(shape, &recipe.strides) {
        None => offset >= 0,
        Some((lo, hi)) => offset + lo >= 0 && offset + hi < elements as i128,
    };
    let storage = filled_storage(dtype, elements, seed);
    let layout = Layout {
        shape: shape.into(),
        strides: recipe.strides.as_slice().into(),
        offset: offset as isize,
    };
    (Array::from_parts(storage, layout, dtype), inside)
}

/// A shape of rank ≤ 4, sizes 0–4.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![1 => Just(0usize), 8 => 1usize..=4], 0..=4)
}

/// The shape of an operand that broadcasts to `common`: a suffix of it, some sizes made 1.
fn broadcast_operand_shape(common: &[usize], drop: usize, ones: u32) -> Vec<usize> {
    let keep = &common[drop.min(common.len())..];
    keep.iter()
        .enumerate()
        .map(|(i, &n)| if ones >> i & 1 == 1 { 1 } else { n })
        .collect()
}

/// Row-major multi-indices of `shape` (one empty index for 0-d).
fn multi_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &n in shape {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..n).map(move |i| {
                    let mut v = p.clone();
                    v.push(i);
                    v
                })
            })
            .collect();
    }
    out
}

/// The address of the element of `a` at `index` of the broadcast shape (right-aligned, size-1
/// dims broadcast), from `a`'s data pointer, strides and itemsize.
fn address(a: &Array, index: &[usize]) -> usize {
    let skip = index.len() - a.ndim();
    let mut elems = 0isize;
    for (d, (&n, &s)) in a.shape().iter().zip(a.strides()).enumerate() {
        let i = if n == 1 { 0 } else { index[skip + d] };
        elems += i as isize * s;
    }
    (a.data_ptr() as isize + elems * a.itemsize() as isize) as usize
}

/// Whether `addr` is an aligned element of `a`'s storage.
fn inside_storage(a: &Array, addr: usize) -> bool {
    let base = a.storage().base_ptr() as usize;
    let end = base + a.storage().nbytes();
    addr >= base && addr + a.itemsize() <= end && (addr - base).is_multiple_of(a.itemsize())
}

/// Values of an array, for comparison: floats within a relative tolerance (vector and scalar
/// paths may round differently), NaN equal to NaN.
fn same_values(x: &Array, y: &Array, rtol: f64) -> Result<(), String> {
    let (xs, ys) = (x.to_scalars().unwrap(), y.to_scalars().unwrap());
    if xs.len() != ys.len() {
        return Err(format!("{} vs {} elements", xs.len(), ys.len()));
    }
    let close = |a: f64, b: f64| {
        a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rtol * a.abs().max(b.abs())
    };
    for (i, (a, b)) in xs.iter().zip(&ys).enumerate() {
        let ok = match (a, b) {
            (Scalar::Float(a), Scalar::Float(b)) => close(*a, *b),
            (Scalar::Complex(a, c), Scalar::Complex(b, d)) => close(*a, *b) && close(*c, *d),
            _ => a == b,
        };
        if !ok {
            return Err(format!("element {i}: {a:?} vs {b:?}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn views_accept_exactly_the_layouts_inside_their_storage(
        dtype in prop::sample::select(dtypes()),
        (shape, recipe) in shape().prop_flat_map(|s| { let r = s.len(); (Just(s), view_recipe(r)) }),
    ) {
        let (view, inside) = make_view(dtype, &shape, &recipe, 0);
        // (an empty layout reaches nothing: any offset is harmless, and accepted)
        if !shape.contains(&0) {
            prop_assert_eq!(view.is_ok(), inside, "{:?}", view.err());
        }
        if let Ok(a) = view {
            for index in multi_indices(&shape) {
                prop_assert!(inside_storage(&a, address(&a, &index)));
            }
        }
    }

    #[test]
    fn the_walk_visits_every_element_once_inside_bounds(
        dtype in prop::sample::select(dtypes()),
        common in shape(),
        inputs in prop::collection::vec((0usize..3, 0u32..16, view_recipe(4)), 1..=3),
        out_kind in 0u8..3,
        out_perm_seed in 0usize..24,
        grain in prop::sample::select(vec![1usize, 3, 7, 32768]),
    ) {
        let mut arrays = Vec::new();
        for (k, (drop, ones, recipe)) in inputs.iter().enumerate() {
            // the first input has the whole shape, so that the broadcast shape is `common`
            let s = if k == 0 { common.clone() } else { broadcast_operand_shape(&common, *drop, *ones) };
            let recipe = ViewRecipe { strides: recipe.strides[..s.len()].to_vec(), shift: 0, ..recipe.clone() };
            arrays.push(make_view(dtype, &s, &recipe, k as i32).0.unwrap());
        }
        // the output: allocated by the build, a dense permuted one, or one with zero strides
        let given = match out_kind {
            0 => None,
            1 => {
                let mut order: Vec<usize> = (0..common.len()).collect();
                let mut seed = out_perm_seed;
                for i in (1..order.len()).rev() { order.swap(i, seed % (i + 1)); seed /= i + 1; }
                let mut strides = vec![0isize; common.len()];
                let mut acc = 1isize;
                for &d in &order { strides[d] = acc; acc *= common[d].max(1) as isize; }
                Some(Array::empty_strided(&common, &strides, dtype).unwrap())
            }
            _ => {
                let strides: Vec<isize> = (0..common.len()).map(|d| if d == 0 { 0 } else { 1 }).collect();
                Some(Array::empty_strided(&common, &strides, dtype).unwrap())
            }
        };
        let mut config = TensorIteratorConfig::new();
        config.add_output(given.clone());
        for a in &arrays { config.add_input(a.clone()); }
        let plan = match config.build() { Ok(p) => p, Err(_) => return Ok(()) };
        let out = plan.output(0).unwrap().clone();
        prop_assert_eq!(out.shape(), common.as_slice());
        let operands: Vec<Array> = std::iter::once(out.clone()).chain(arrays.iter().cloned()).collect();
        let seen = Mutex::new(Vec::<Vec<usize>>::new());
        let bad = Mutex::new(Vec::<String>::new());
        for_each(&plan, grain, |b: &Block| {
            let mut rows = Vec::with_capacity(b.size0() * b.size1());
            for j in 0..b.size1() {
                for i in 0..b.size0() {
                    let tuple: Vec<usize> = (0..b.noperands()).map(|k| b.at(k, i, j) as usize).collect();
                    for (k, &addr) in tuple.iter().enumerate() {
                        if !inside_storage(&operands[k], addr) {
                            bad.lock().unwrap().push(format!("operand {k} at {addr:#x} outside its storage"));
                        }
                    }
                    rows.push(tuple);
                }
            }
            seen.lock().unwrap().extend(rows);
        }).unwrap();
        let bad = bad.into_inner().unwrap();
        prop_assert!(bad.is_empty(), "{:?}", bad);
        let mut expected: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
        for index in multi_indices(&common) {
            if common.contains(&0) { break; }
            let tuple = operands.iter().map(|a| address(a, &index)).collect();
            *expected.entry(tuple).or_default() += 1;
        }
        let mut got: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
        for t in seen.into_inner().unwrap() { *got.entry(t).or_default() += 1; }
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn kernels_do_not_depend_on_the_layout(
        dtype_a in prop::sample::select(dtypes()),
        dtype_b in prop::sample::select(dtypes()),
        (common, ra, rb) in shape().prop_flat_map(|s| { let r = s.len(); (Just(s), view_recipe(r), view_recipe(r)) }),
        ones in 0u32..16,
        op in 0usize..64,
        dims in prop::collection::vec(-5i64..5, 0..3),
        keepdim in any::<bool>(),
        to in prop::sample::select(dtypes()),
    ) {
        let ra = ViewRecipe { shift: 0, ..ra };
        let rb = ViewRecipe { shift: 0, ..rb };
        let a = make_view(dtype_a, &common, &ra, 1).0.unwrap();
        let b_shape = broadcast_operand_shape(&common, 0, ones);
        let b = make_view(dtype_b, &b_shape, &rb, 2).0.unwrap();
        let dense = |x: &Array| ferroiter::kernels::copy::converted_copy(x, None, MemoryFormat::Contiguous).unwrap();
        let (ca, cb) = (dense(&a), dense(&b));
        let rtol = if [dtype_a, dtype_b].iter().any(|d| matches!(d, DType::F16 | DType::BF16 | DType::ComplexHalf)) { 1e-2 } else { 1e-5 };
        let run = |a: &Array, b: &Array| -> ferroiter::Result<Array> {
            let nb = BinaryOp::ALL.len();
            let nu = UnaryOp::ALL.len();
            let choice = op % (nb + nu + 6);
            if choice < nb {
                binary(BinaryOp::ALL[choice], &Arg::Array(a.clone()), &Arg::Array(b.clone()), None, None)
            } else if choice < nb + nu {
                unary(UnaryOp::ALL[choice - nb], a, None)
            } else {
                let ops = [ReduceOp::Sum, ReduceOp::Amax, ReduceOp::Argmax, ReduceOp::All, ReduceOp::Any];
                match ops.get(choice - nb - nu) {
                    Some(&r) => {
                        let dims = if r == ReduceOp::Argmax { &dims[..dims.len().min(1)] } else { &dims[..] };
                        reduction(r, a, Some(dims), keepdim, None, None)
                    }
                    None => ferroiter::kernels::copy::converted_copy(a, Some(to), MemoryFormat::Preserve),
                }
            }
        };
        let (strided, dense_result) = (run(&a, &b), run(&ca, &cb));
        match (&strided, &dense_result) {
            (Ok(x), Ok(y)) => {
                prop_assert_eq!(x.dtype(), y.dtype());
                prop_assert_eq!(x.shape(), y.shape());
                if let Err(e) = same_values(x, y, rtol) { prop_assert!(false, "{}", e); }
            }
            (Err(x), Err(y)) => prop_assert_eq!(x.to_string(), y.to_string()),
            _ => prop_assert!(false, "strided {:?} vs dense {:?}", strided.as_ref().err(), dense_result.as_ref().err()),
        }
    }
}
