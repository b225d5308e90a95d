#!/usr/bin/env python3
"""Writes the fuzz target's regression seeds (tests/fuzz/corpus/regress-*).

Each seed is a sequence of ops in the encoding fuzz_input.c and the
fz_op_* decoders read (one byte per choice, in their order of reading);
keep the two in step. Every seed here broke a promise of abi/stepgraph.h
before its fix (issue 10) and must pass now:

    python3 tests/fuzz/seeds.py            # rewrites the seeds
    build/tests/fuzz/sanitized/fuzz_abi tests/fuzz/corpus/regress-*
"""

from pathlib import Path

# Op bytes: the index of each op in fuzz_main.c's table.
CREATE, RACE, REGISTER_FP8, REGISTER_STATIC, GET_STATS = 1, 5, 6, 7, 21
# fz_op_register_fp8's mutation fields (mutate_fp8) and pointer choices.
SCALE, SCALE_INV, AMAX, RANGE_BEGIN, STRIP_MASTER = 10, 11, 12, 13, 17
TOP_FLOATS = 4  # fz_pointer case: UINTPTR_MAX - 3 - 4 * (next byte % 4)
# fz_struct_size: 0 means sizeof; decode_shape's count choices.
AS_DECLARED, COUNT_N, COUNT_UINT32_MAX, COUNT_ROOM_PLUS_1 = 0, 0, 2, 3
# capacities[] in fz_op_create: index 4 is a capacity of 4.
CAPACITY_4 = 4
SHAPE_4 = 3  # shapes[3] == 4


def create(slot: int, log_level: int, fp8_capacity: int = CAPACITY_4,
           static_capacity: int = CAPACITY_4) -> bytes:
    """session_create in `slot`: validation-only, no config edits."""
    return bytes([
        CREATE, slot, AS_DECLARED,
        1,                  # session_out given (1 % 32 != 0)
        fp8_capacity, static_capacity,
        log_level,
        0,                  # log_fn: the target's (checks every call)
        0,                  # warmup_steps
        0,                  # rng_seed: numbers[0]
        0,                  # no config edits
    ])


def fp8_desc(*mutations: bytes) -> bytes:
    """A valid 4 x 4 FP8 descriptor in slot 0, group 0, then edits."""
    return bytes([0, SHAPE_4, SHAPE_4, 0, len(mutations)]) + b"".join(mutations)


def register_fp8(desc: bytes, count_choice: int = COUNT_N) -> bytes:
    """register_fp8_params on slot 0 with one element."""
    return (bytes([REGISTER_FP8, 0, 0, AS_DECLARED, count_choice]) + desc +
            bytes([1, 1]))  # no struct_size mismatch, array not NULL


def register_static(count_choice: int) -> bytes:
    """register_static_buffers on slot 0 with one 64-byte buffer."""
    return bytes([REGISTER_STATIC, 0, 0, AS_DECLARED, count_choice,
                  0, 0, 0,   # slot 0, 64 bytes, no edits
                  1, 1])


def get_stats() -> bytes:
    return bytes([GET_STATS, 0, 1, AS_DECLARED])


SEEDS = {
    # A cast range without a master reached the table build: SG_ERR_CUDA.
    "regress-masterless-range": create(0, 1) + register_fp8(fp8_desc(
        bytes([STRIP_MASTER]), bytes([RANGE_BEGIN, 1]))) + get_stats(),
    # scale, scale_inv and amax all at the last float of the address space:
    # their ends wrapped to 0 and the overlap went unseen.
    "regress-scalars-at-top": create(0, 1) + register_fp8(fp8_desc(
        bytes([SCALE, TOP_FLOATS, 0]), bytes([SCALE_INV, TOP_FLOATS, 0]),
        bytes([AMAX, TOP_FLOATS, 0]))) + get_stats(),
    # last_error's own failure (one thread) against failing pre_capture
    # calls (another): log_fn overlapped itself.
    "regress-log-race": create(0, 1) + bytes([RACE, 0, 31, 0]) * 8,
    # count UINT32_MAX on capacity 4: an allocation sized from the count.
    "regress-huge-count": create(0, 1) + register_fp8(
        fp8_desc(), COUNT_UINT32_MAX) + get_stats(),
    # count = room + 1 with one element: read past the host's array.
    "regress-count-past-array": create(0, 1) +
        register_static(COUNT_ROOM_PLUS_1) + get_stats(),
}


def main() -> None:
    corpus = Path(__file__).resolve().parent / "corpus"
    corpus.mkdir(exist_ok=True)
    for name, data in SEEDS.items():
        (corpus / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
