//! The seed examples of torch-semantics.md §4-5, and properties of every plan.

use super::dim_counter;
use super::*;
use crate::array::element_offsets;
use crate::{Array, DType, MemoryFormat};
use proptest::prelude::*;

fn strided(shape: &[usize], strides: &[isize]) -> Array {
    Array::empty(&[4096], DType::F32, MemoryFormat::Contiguous)
        .unwrap()
        .as_strided(shape, strides, Some(0))
        .unwrap()
}

fn binary(a: Array, b: Array) -> TensorIterator {
    let input = |array| Input {
        array,
        is_const: false,
        is_wrapped_number: false,
    };
    TensorIteratorConfig::binary_op(None, input(a), input(b))
        .build()
        .unwrap()
}

#[test]
fn e1_channels_last_plus_broadcast() {
    let a = Array::empty(&[2, 3, 4, 5], DType::F32, MemoryFormat::ChannelsLast).unwrap();
    let b = Array::empty(&[3, 4, 5], DType::F32, MemoryFormat::Contiguous).unwrap();
    let it = binary(a.clone(), b.clone());
    assert_eq!(it.perm(), &[1, 3, 2, 0]);
    assert_eq!(it.output(0).unwrap().strides(), &[60, 1, 15, 3]);
    assert_eq!(binary(b, a).output(0).unwrap().strides(), &[60, 20, 5, 1]);
}

#[test]
fn e2_e3_ambiguous_operands() {
    let a = strided(&[2, 3, 1, 1], &[3, 1, 3, 3]);
    let b = strided(&[3, 1, 1], &[1, 1, 1]);
    assert_eq!(
        binary(a.clone(), b).output(0).unwrap().strides(),
        &[3, 1, 3, 3]
    );
    let c = strided(&[3, 1, 3], &[1, 3, 3]);
    assert_eq!(
        binary(a.clone(), c.clone()).output(0).unwrap().strides(),
        &[9, 1, 3, 3]
    );
    assert_eq!(
        binary(c, a.clone()).output(0).unwrap().strides(),
        &[9, 1, 3, 3]
    );
    // E2b: a + a takes the contiguous fast path.
    let it = binary(a.clone(), a);
    assert_eq!(it.fast_setup(), Some(FastSetup::Contiguous));
    assert_eq!(it.output(0).unwrap().strides(), &[3, 1, 1, 1]);
}

#[test]
fn nchw_to_channels_last_copy_coalesces() {
    let src = Array::empty(&[1, 64, 5, 4], DType::F32, MemoryFormat::Contiguous).unwrap();
    let dst = Array::empty(&[1, 64, 5, 4], DType::F32, MemoryFormat::ChannelsLast).unwrap();
    let it = TensorIteratorConfig::copy_op(dst, src).build().unwrap();
    assert_eq!(it.shape(), &[64, 20]);
    assert_eq!(it.strides(0).unwrap(), &[4, 256]);
    assert_eq!(it.strides(1).unwrap(), &[80, 4]);
}

#[test]
fn dim_counter_seed() {
    let a = Array::empty(&[10, 2000, 64], DType::F32, MemoryFormat::Contiguous).unwrap();
    let b = Array::empty(&[10, 1, 64], DType::F32, MemoryFormat::Contiguous).unwrap();
    let it = binary(a, b);
    assert_eq!(it.shape(), &[64, 2000, 10]);
    let steps = it.loops(1_066_670, it.numel()).unwrap();
    assert_eq!(
        &steps[..3],
        &[
            (vec![46, 666, 8], (18, 1)),
            (vec![0, 667, 8], (64, 1333)),
            (vec![0, 0, 9], (64, 2000))
        ]
    );
}

#[test]
fn errors_have_torch_texts() {
    let a = Array::empty(&[3], DType::F32, MemoryFormat::Contiguous).unwrap();
    let b = Array::empty(&[2, 3], DType::F32, MemoryFormat::Contiguous).unwrap();
    let input = |array| Input {
        array,
        is_const: false,
        is_wrapped_number: false,
    };
    let err = TensorIteratorConfig::binary_op(Some(a.clone()), input(a.clone()), input(b))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "output with shape [3] doesn't match the broadcast shape [2, 3]"
    );
    let long = Array::empty(&[3], DType::I64, MemoryFormat::Contiguous).unwrap();
    let err = TensorIteratorConfig::binary_op(Some(long), input(a.clone()), input(a.clone()))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "result type Float can't be cast to the desired output type Long"
    );
    let long = Array::empty(&[3], DType::I64, MemoryFormat::Contiguous).unwrap();
    let err = TensorIteratorConfig::unary_op(Some(long), a.clone())
        .build()
        .unwrap_err();
    assert_eq!(err.to_string(), "Found dtype Long but expected Float");
    let expanded = a.expand(&[2, 3]).unwrap();
    let err = TensorIteratorConfig::unary_op(Some(expanded), b_like(&[2, 3]))
        .build()
        .unwrap_err();
    assert!(err
        .to_string()
        .starts_with("unsupported operation: more than one element"));
    let x = Array::empty(&[4], DType::F32, MemoryFormat::Contiguous).unwrap();
    let lo = x
        .index(&[crate::IndexItem::Slice {
            start: Some(1),
            stop: None,
            step: None,
        }])
        .unwrap();
    let hi = x
        .index(&[crate::IndexItem::Slice {
            start: None,
            stop: Some(3),
            step: None,
        }])
        .unwrap();
    let err = TensorIteratorConfig::unary_op(Some(lo), hi)
        .build()
        .unwrap_err();
    assert!(err
        .to_string()
        .starts_with("unsupported operation: some elements of the input tensor"));
}

/// torch's `is_same` is identity: `out=x` is read-write, but `out=x[:]` (an equal view, another
/// tensor) is resized like any out. Without declared identities, equal views count as one.
#[test]
fn declared_identities_decide_read_write() {
    let x = b_like(&[3]);
    let b = b_like(&[2, 3]);
    let input = |array| Input {
        array,
        is_const: false,
        is_wrapped_number: false,
    };
    let config = TensorIteratorConfig::binary_op(Some(x.clone()), input(x.clone()), input(b));
    let err = config.build().unwrap_err();
    assert_eq!(
        err.to_string(),
        "output with shape [3] doesn't match the broadcast shape [2, 3]"
    );
    let mut same = config.clone();
    same.declare_operand_identities(vec![Some(1), Some(1), Some(2)]);
    assert!(same.build().is_err());
    let mut two = config.clone();
    two.declare_operand_identities(vec![Some(1), Some(3), Some(2)]);
    let it = two.build().unwrap();
    assert_eq!(it.output(0).unwrap().shape(), &[2, 3]);
    // equal ids on arrays that are not equal views do not make them one tensor
    let mut bogus = TensorIteratorConfig::binary_op(
        Some(b_like(&[3])),
        input(x.clone()),
        input(b_like(&[2, 3])),
    );
    bogus.declare_operand_identities(vec![Some(1), Some(1), Some(2)]);
    assert_eq!(bogus.build().unwrap().output(0).unwrap().shape(), &[2, 3]);
}

/// A static shape walks every operand with its own strides: an operand that does not cover
/// it (fewer dims, or a shorter dim) is refused at build, so that no walk of the plan leaves
/// an operand's storage (a 2-element input once built into a 1000-element plan).
#[test]
fn static_shape_must_fit_every_operand() {
    let static_plan = |input: Array, shape: &[usize]| {
        let mut config = TensorIteratorConfig::new();
        config
            .add_output(None)
            .add_input(input)
            .declare_static_dtype(DType::F32)
            .declare_static_shape(shape);
        config.build()
    };
    let err = static_plan(b_like(&[2]), &[1000]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "declare_static_shape: operand 1 of shape [2] does not cover the static shape [1000]"
    );
    assert!(static_plan(b_like(&[2]), &[3, 2]).is_err());
    assert!(static_plan(b_like(&[3, 2]), &[2]).is_err());
    // shapes that cover it build, and walk only the static shape
    let it = static_plan(b_like(&[4, 3]), &[4, 3]).unwrap();
    assert_eq!(it.numel(), 12);
    let it = static_plan(b_like(&[4, 3]), &[2, 3]).unwrap();
    assert_eq!(it.numel(), 6);
}

fn b_like(shape: &[usize]) -> Array {
    Array::empty(shape, DType::F32, MemoryFormat::Contiguous).unwrap()
}

/// Every logical index as the tuple of element offsets it has in each operand.
fn logical_tuples(it: &TensorIterator, operands: &[Array], shape: &[usize]) -> Vec<Vec<isize>> {
    let expanded: Vec<Array> = operands
        .iter()
        .map(|a| a.broadcast_to(shape).unwrap())
        .collect();
    let per: Vec<Vec<isize>> = expanded
        .iter()
        .map(|a| element_offsets(a.layout()).collect())
        .collect();
    let numel: usize = shape.iter().product();
    let _ = it;
    let mut out: Vec<Vec<isize>> = (0..numel)
        .map(|k| per.iter().map(|p| p[k]).collect())
        .collect();
    out.sort();
    out
}

/// The same tuples as the plan walks them, block by block.
fn plan_tuples(it: &TensorIterator) -> Vec<Vec<isize>> {
    let mut out = vec![];
    for (start, (s0, s1)) in dim_counter::blocks(it.shape(), 0, it.numel()) {
        for j in 0..s1 {
            for i in 0..s0 {
                let tuple = it
                    .operands()
                    .iter()
                    .map(|op| {
                        let a = op.array.as_ref().unwrap();
                        let item = a.itemsize() as isize;
                        let mut off = a.storage_offset() * item;
                        for (d, &v) in start.iter().enumerate() {
                            let extra = match d {
                                0 => i,
                                1 => j,
                                _ => 0,
                            };
                            off +=
                                (v + extra) as isize * op.stride_bytes.get(d).copied().unwrap_or(0);
                        }
                        if start.is_empty() {
                            off += i as isize * op.stride_bytes.first().copied().unwrap_or(0);
                        }
                        off / item
                    })
                    .collect();
                out.push(tuple);
            }
        }
    }
    out.sort();
    out
}

/// A random strided view: a permuted contiguous base, then size-1 dims and steps.
fn layout_strategy() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<usize>)> {
    (1usize..=4).prop_flat_map(|n| {
        (
            proptest::collection::vec(1usize..=4, n),
            Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
            proptest::collection::vec(1usize..=2, n),
        )
    })
}

fn make(shape: &[usize], perm: &[usize], steps: &[usize]) -> Array {
    let full: Vec<usize> = shape.iter().zip(steps).map(|(s, k)| s * k).collect();
    let permuted_shape: Vec<usize> = perm.iter().map(|&p| full[p]).collect();
    let base = Array::empty(&permuted_shape, DType::F32, MemoryFormat::Contiguous).unwrap();
    let mut inv = vec![0i64; perm.len()];
    for (k, &p) in perm.iter().enumerate() {
        inv[p] = k as i64;
    }
    let v = base.permute(&inv).unwrap();
    let items: Vec<crate::IndexItem> = steps
        .iter()
        .map(|&k| crate::IndexItem::Slice {
            start: None,
            stop: None,
            step: Some(k as i64),
        })
        .collect();
    v.index(&items).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Coalescing and reordering only regroup dims: the plan visits exactly the logical
    /// index space, each index once, with the same offset in every operand.
    #[test]
    fn plan_visits_each_index_once((s1, p1, k1) in layout_strategy(), (s2, p2, k2) in layout_strategy(), drop in 0usize..3) {
        let a = make(&s1, &p1, &k1);
        // b broadcasts against a: a suffix of a's shape with some dims set to 1.
        let tail = s1.len().saturating_sub(drop);
        let b_shape: Vec<usize> = s1[s1.len() - tail..].iter().enumerate().map(|(i, &s)| if s2.get(i).is_some_and(|&x| x == 1) { 1 } else { s }).collect();
        let b_perm: Vec<usize> = { let mut v: Vec<usize> = p2.iter().copied().filter(|&p| p < b_shape.len()).collect(); for d in 0..b_shape.len() { if !v.contains(&d) { v.push(d); } } v };
        let b_steps: Vec<usize> = (0..b_shape.len()).map(|i| k2.get(i).copied().unwrap_or(1)).collect();
        let b = make(&b_shape, &b_perm, &b_steps);
        let it = binary(a.clone(), b.clone());
        let out = it.output(0).unwrap().clone();
        let shape = a.shape().to_vec();
        let expected = logical_tuples(&it, &[out, a, b], &shape);
        prop_assert_eq!(plan_tuples(&it), expected);
    }
}

/// Everything a plan decided, for comparing two plans.
fn summary(it: &TensorIterator) -> String {
    let ops: Vec<String> = (0..it.ntensors())
        .map(|i| format!("{:?} {:?}", it.strides(i).unwrap(), it.dtype(i).unwrap()))
        .collect();
    let outs: Vec<String> = (0..it.noutputs())
        .map(|i| {
            let o = it.output(i).unwrap();
            format!("{:?} {:?} {:?}", o.shape(), o.strides(), o.dtype())
        })
        .collect();
    let flags: Vec<(bool, bool)> = it
        .operands()
        .iter()
        .map(|op| (op.is_read_write, op.will_resize))
        .collect();
    format!(
        "shape {:?} perm {:?} fast {:?} common {:?} ops {ops:?} outs {outs:?} rw/resize {flags:?}",
        it.shape(),
        it.perm(),
        it.fast_setup(),
        it.common_dtype()
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The contiguous shortcut of `build` concludes what torch's phases conclude, for every
    /// preset it may apply to (and the phases still run when it may not).
    #[test]
    fn contiguous_shortcut_agrees_with_the_phases(
        shape in proptest::collection::vec(0usize..=3, 1..=4),
        dtype in prop_oneof![Just(DType::F32), Just(DType::I64), Just(DType::Bool), Just(DType::F16)],
        preset in 0usize..5,
        permuted in proptest::bool::ANY,
        given in 0usize..6,
    ) {
        // a and a same-shaped neighbour in one storage: `c` overlaps `a` partially when the
        // shape has a dim of size 2 or more
        let numel: usize = shape.iter().product();
        let buffer = Array::empty(&[2 * numel + 1], dtype, MemoryFormat::Contiguous).unwrap();
        let contiguous = crate::dims::contiguous_strides(&shape);
        let at = |offset: isize| buffer.as_strided(&shape, &contiguous, Some(offset)).unwrap();
        let a = at(0);
        let b = if permuted && shape.len() > 1 {
            // the same shape with reversed strides: the phases must run
            let reversed: Vec<usize> = shape.iter().rev().copied().collect();
            let dims: Vec<i64> = (0..shape.len() as i64).rev().collect();
            Array::empty(&reversed, dtype, MemoryFormat::Contiguous).unwrap().permute(&dims).unwrap()
        } else {
            Array::empty(&shape, dtype, MemoryFormat::Contiguous).unwrap()
        };
        // the output: to be allocated, a fresh one, `a` itself (read-write), a partial
        // overlap of `a`, another dtype or another shape
        let other = if dtype == DType::F32 { DType::I64 } else { DType::F32 };
        let out = match given {
            0 => None,
            1 => Some(Array::empty(&shape, dtype, MemoryFormat::Contiguous).unwrap()),
            2 => Some(a.clone()),
            3 => Some(at(1)),
            4 => Some(Array::empty(&shape, other, MemoryFormat::Contiguous).unwrap()),
            _ => Some(Array::empty(&[numel + 1], dtype, MemoryFormat::Contiguous).unwrap()),
        };
        let input = |array: &Array| Input::array(array.clone());
        let config = match preset {
            0 => TensorIteratorConfig::binary_op(out, input(&a), input(&b)),
            1 => TensorIteratorConfig::binary_float_op(out, input(&a), input(&b)),
            2 => TensorIteratorConfig::comparison_op(out, input(&a), input(&b)),
            3 => TensorIteratorConfig::unary_op(out, a.clone()),
            _ => TensorIteratorConfig::ternary_op(out, input(&a), input(&b), input(&a)),
        };
        let shortcut = build::build(config.clone(), false);
        let phases = build::build_shared(std::sync::Arc::new(config), false);
        match (shortcut, phases) {
            (Ok(s), Ok(p)) => prop_assert_eq!(summary(&s), summary(&p)),
            (s, p) => prop_assert_eq!(s.err().map(|e| e.to_string()), p.err().map(|e| e.to_string())),
        }
    }

    /// The plan a kernel makes straight from its arrays is the plan the phases build from the
    /// op's config, whenever it applies; and it applies to every call of one dtype whose
    /// operands are contiguous of one shape or 0-d (on either side; not beside an empty
    /// array), or contiguous rows that broadcast along the leading dims (none of size 0 or 1;
    /// not beside a number), except true division of integers — with a new output, or a given
    /// one (`out=`, or the first input itself, in place) of that shape and dtype, contiguous.
    #[test]
    fn contiguous_kernel_plan_agrees_with_the_phases(
        shape in proptest::collection::vec(0usize..=3, 0..=4),
        dtype in prop_oneof![Just(DType::F32), Just(DType::I64), Just(DType::Bool), Just(DType::F16), Just(DType::C64)],
        preset in 0usize..5,
        other_b in 0usize..7,
        swap in proptest::bool::ANY,
        odd_ones in proptest::bool::ANY,
        given in 0usize..4,
    ) {
        let a = Array::empty(&shape, dtype, MemoryFormat::Contiguous).unwrap();
        // still contiguous with any stride on its size-1 dims, which the stride sort reads
        let canonical = crate::dims::contiguous_strides(&shape);
        let odd: Vec<isize> = shape.iter().zip(&canonical).map(|(&n, &s)| if n == 1 { 7 } else { s }).collect();
        let a = if odd_ones { a.as_strided(&shape, &odd, None).unwrap() } else { a };
        let b = match other_b {
            // a permuted view, another dtype, another (broadcast) shape, a 0-d array, rows of
            // the last dims (one, or all but the first after a 1), a match
            1 if shape.len() > 1 => {
                let reversed: Vec<usize> = shape.iter().rev().copied().collect();
                let dims: Vec<i64> = (0..shape.len() as i64).rev().collect();
                Array::empty(&reversed, dtype, MemoryFormat::Contiguous).unwrap().permute(&dims).unwrap()
            }
            2 => Array::empty(&shape, DType::F64, MemoryFormat::Contiguous).unwrap(),
            3 => Array::empty(&[1], dtype, MemoryFormat::Contiguous).unwrap(),
            4 => Array::full(&[], crate::Scalar::Int(1), dtype, MemoryFormat::Contiguous).unwrap(),
            5 if !shape.is_empty() => Array::empty(&shape[shape.len() - 1..], dtype, MemoryFormat::Contiguous).unwrap(),
            6 if !shape.is_empty() => {
                let row: Vec<usize> = std::iter::once(1).chain(shape[1..].iter().copied()).collect();
                Array::empty(&row, dtype, MemoryFormat::Contiguous).unwrap()
            }
            _ => Array::empty(&shape, dtype, MemoryFormat::Contiguous).unwrap(),
        };
        let (x, y) = if swap { (&b, &a) } else { (&a, &b) };
        // no output; the first input, in place; a new array of `a`'s shape and dtype; the same
        // as a bool array (comparisons' dtype)
        let out = match given {
            1 => Some(x.clone()),
            2 => Some(Array::empty(&shape, dtype, MemoryFormat::Contiguous).unwrap()),
            3 => Some(Array::empty(&shape, DType::Bool, MemoryFormat::Contiguous).unwrap()),
            _ => None,
        };
        let input = |array: &Array| Input::array(array.clone());
        let o = out.clone();
        let (config, inputs, output_dtype, float) = match preset {
            0 => (TensorIteratorConfig::binary_op(o, input(x), input(y)), vec![x, y], None, false),
            1 => (TensorIteratorConfig::binary_float_op(o, input(x), input(y)), vec![x, y], None, true),
            2 => (TensorIteratorConfig::comparison_op(o, input(x), input(y)), vec![x, y], Some(DType::Bool), false),
            3 => (TensorIteratorConfig::unary_op(o, x.clone()), vec![x], None, false),
            _ => (TensorIteratorConfig::unary_float_op(o, x.clone()), vec![x], None, true),
        };
        let direct = super::direct::contiguous_kernel_plan(&inputs, output_dtype, float, out.as_ref()).unwrap();
        let contiguous = |z: &Array| z.is_contiguous_as(MemoryFormat::Contiguous).unwrap();
        // the plan's shape is that of the first input of the most dims
        let with_dims = inputs.iter().copied().rev().max_by_key(|z| z.ndim()).filter(|w| w.ndim() > 0);
        let full_shape = with_dims.map_or(&[][..], |w| w.shape());
        let number = inputs.iter().any(|z| z.ndim() == 0);
        let plain = |z: &Array| z.strides() == &crate::dims::contiguous_strides(z.shape())[..];
        // an input that is its shape's last dims after some 1s, in canonical strides: a row
        let row = |z: &Array| {
            let own = &z.shape()[z.shape().iter().take_while(|&&n| n == 1).count()..];
            !own.is_empty() && own.len() < full_shape.len() && full_shape.ends_with(own) && plain(z)
        };
        let rows: Vec<usize> = inputs.iter().filter(|z| z.ndim() > 0 && z.shape() != full_shape).map(|z| z.shape().len()).collect();
        let sorted = number || !rows.is_empty();
        let same_dtype = |z: &Array| Some(z.dtype()) == with_dims.map(|w| w.dtype());
        let fits = |z: &Array| same_dtype(z)
            && (z.ndim() == 0 || row(z) || (z.shape() == full_shape && contiguous(z) && (!sorted || plain(z))));
        let one_row_length = inputs.iter().filter(|z| z.ndim() > 0 && z.shape() != full_shape)
            .map(|z| z.shape().iter().skip_while(|&&n| n == 1).count())
            .collect::<std::collections::HashSet<_>>().len() <= 1;
        let rows_fit = rows.is_empty() || (!number && one_row_length && full_shape.iter().all(|&n| n >= 2));
        let out_fits = out.as_ref().is_none_or(|o| {
            same_dtype(o) && o.shape() == full_shape && contiguous(o) && (!sorted || plain(o))
                && output_dtype.is_none_or(|d| Some(d) == with_dims.map(|w| w.dtype()))
        });
        let expected = with_dims.is_some_and(|w| !(number && w.numel() == 0))
            && inputs.iter().all(|z| fits(z))
            && rows_fit
            && out_fits
            && !(float && with_dims.is_some_and(|w| w.dtype().is_integral(true)));
        prop_assert_eq!(direct.is_some(), expected);
        if let Some(direct) = direct {
            let phases = build::build_shared(std::sync::Arc::new(config), false).unwrap();
            prop_assert_eq!(summary(&direct), summary(&phases));
        }
    }
}
