"""tvm.tir.IndexMap checked by brute force over every point of small
domains: map_indices against the Python function itself, map_shape against
the largest mapped index, inverse against the identity; printing,
structural equality and bad inputs."""
import itertools

import pytest

import tessera as tvm
from tessera import tir

MAPS = [
    ((16, 16), lambda i, j: (j // 4, i, j % 4)),
    ((8, 16), lambda i, j: (i * 16 + j,)),
    ((8, 16), lambda i, j: ((i * 16 + j) // 32, (i * 16 + j) % 32)),
    ((4, 6, 5), lambda a, b, c: (c, a, b)),
    ((12,), lambda i: (i % 3, i // 3)),
]


@pytest.mark.parametrize("shape,fn", MAPS)
def test_map_indices_shape_and_inverse_by_brute_force(shape, fn):
    m = tir.IndexMap.from_func(fn, index_dtype="int32")
    points = list(itertools.product(*[range(n) for n in shape]))
    images = []
    for p in points:
        expected = fn(*p)
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = [int(x) for x in m.map_indices(list(p))]
        assert got == list(expected), p
        images.append(tuple(got))
    new_shape = [int(x) for x in m.map_shape(list(shape))]
    assert new_shape == [max(im[k] for im in images) + 1 for k in range(len(new_shape))]
    inv = m.inverse(list(shape))
    assert len(inv.initial_indices) == len(new_shape)
    for p, im in zip(points, images):
        assert [int(x) for x in inv.map_indices(list(im))] == list(p), (p, im)
    assert inv.inverse_index_map.same_as(m)


def test_printing_and_structural_equality():
    m = tir.IndexMap.from_func(lambda i, j: (j // 4, i, j % 4), index_dtype="int32")
    assert str(m) == "T.index_map(lambda i, j: (j // 4, i, j % 4))"
    assert [v.name_hint for v in m.initial_indices] == ["i", "j"]
    assert tvm.ir.structural_equal(m, tir.IndexMap.from_func(lambda a, b: (b // 4, a, b % 4), index_dtype="int32"))
    assert m.is_equivalent_to(tir.IndexMap.from_func(lambda a, b: (b // 4, a, b % 4), index_dtype="int32"))
    assert not tvm.ir.structural_equal(m, tir.IndexMap.from_func(lambda i, j: (j // 2, i, j % 2), index_dtype="int32"))
    one = tir.IndexMap.from_func(lambda i: i * 2, index_dtype="int64")
    assert str(one) == "T.index_map(lambda i: (i * T.int64(2),))" and one.initial_indices[0].dtype == "int64"
    star = tir.IndexMap.from_func(lambda *idx: tuple(reversed(idx)), ndim=3)
    assert len(star.initial_indices) == 3 and star.final_indices[0].same_as(star.initial_indices[2])


def test_transform_layout_accepts_an_index_map_and_records_it():
    from schedule.test_schedule_instruction_kinds import AddThenScale  # pylint: disable=import-outside-toplevel

    m = tir.IndexMap.from_func(lambda i, j: (j, i), index_dtype="int32")
    sch = tvm.tir.Schedule(AddThenScale)
    sch.transform_layout("B", ("write", 0), m)
    lam = tvm.tir.Schedule(AddThenScale)
    lam.transform_layout("B", ("write", 0), lambda i, j: (j, i))
    tvm.ir.assert_structural_equal(sch.mod, lam.mod)
    inst = sch.trace.insts[-1]
    assert inst.kind.name == "TransformLayout" and inst.attrs[2].same_as(m)
    assert 'index_map=lambda i, j: (j, i))' in str(sch.trace)


def test_bad_inputs_are_value_errors():
    m = tir.IndexMap.from_func(lambda i, j: (j, i), index_dtype="int32")
    with pytest.raises(ValueError, match="takes 2 indices, got 3"):
        m.map_indices([1, 2, 3])
    with pytest.raises(ValueError, match="takes 2 indices but the shape has 1"):
        m.map_shape([4])
    with pytest.raises(ValueError, match="not a bijective affine map"):
        tir.IndexMap.from_func(lambda i, j: (i, i), index_dtype="int32").inverse([4, 4])
    with pytest.raises(ValueError, match="not a bijective affine map"):
        tir.IndexMap.from_func(lambda i, j: (i * j,), index_dtype="int32").inverse([4, 4])
    with pytest.raises(ValueError, match="can be negative"):
        tir.IndexMap.from_func(lambda i: (i - 3,), index_dtype="int32").map_shape([4])
    n = tir.Var("n", "int32")
    shape = m.map_shape([n, 4])  # a symbolic extent stays symbolic (as TVM)
    assert int(shape[0]) == 4 and shape[1].same_as(n)
    with pytest.raises(ValueError, match="needs ndim"):
        tir.IndexMap.from_func(lambda *idx: idx)
    with pytest.raises(ValueError, match="malformed index map JSON"):
        tvm.get_global_func("tir.IndexMapFromJSON")("{}")
    # Expressions JSON cannot hold are refused by name.
    x = tir.Var("x", "int32")
    odd = tir.IndexMap([x], [tir.Select(x > 1, x, x + 1)])
    with pytest.raises(NotImplementedError, match="tir.Select"):
        tvm.get_global_func("tir.IndexMapToJSON")(odd)
