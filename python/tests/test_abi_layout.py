"""The ctypes mirror against the header, field by field: the layout printer
(built by CMake from abi/stepgraph.h, tests/python) prints what the C
compiler computes; CTest passes its path in STEPGRAPH_LAYOUT_PRINTER."""

from __future__ import annotations

import os

import pytest

import layout
from stepgraph import _abi


def _printer(variable: str) -> str:
    path = os.environ.get(variable)
    if not path:
        pytest.skip(f"{variable} is not set: run through CTest (python_abi_layout)")
    return path


@pytest.fixture(scope="module")
def header() -> layout.Header:
    return layout.run_printer(_printer("STEPGRAPH_LAYOUT_PRINTER"))


def test_printer_saw_the_whole_abi(header: layout.Header) -> None:
    assert "sg_api" in header.structs and "sg_session_config" in header.structs
    assert len(header.fields["sg_api"]) == len(_abi.Api.field_names()) > 20
    assert header.enums["sg_status_code"]["SG_ERR_INTERNAL"] == 16


@pytest.mark.parametrize("name", sorted(_abi.STRUCTS))
def test_struct_matches_header(header: layout.Header, name: str) -> None:
    assert name in header.structs, f"{name} is in the mirror but not in the header"
    assert layout.compare_struct(name, header) == []


def test_no_struct_is_missing(header: layout.Header) -> None:
    assert layout.compare_structs(header) == []


def test_function_types_match_header(header: layout.Header) -> None:
    assert layout.compare_function_types(header) == []


def test_enums_match_header(header: layout.Header) -> None:
    assert layout.compare_enums(header) == []


def test_constants_match_header(header: layout.Header) -> None:
    assert layout.compare_constants(header) == []


def test_an_appended_field_without_mirror_is_caught() -> None:
    """The probe printer comes from the header with a field appended to
    sg_stats that the mirror does not have: the comparison must say so."""
    probe = layout.run_printer(_printer("STEPGRAPH_LAYOUT_PROBE"))
    problems = layout.compare(probe)
    assert any("appended_counter" in p for p in problems), problems
    assert any("sizeof(sg_stats)" in p for p in problems), problems


def test_a_retyped_field_is_caught(header: layout.Header) -> None:
    """A field whose signedness changed keeps its size: the kind catches it."""
    fields = header.fields["sg_session_config"]
    index = [f[0] for f in fields].index("device")
    name, offset, size, _, sig = fields[index]
    fields[index] = (name, offset, size, "uint", sig)
    try:
        assert any("sg_session_config.device" in p for p in layout.compare_struct("sg_session_config", header))
    finally:
        fields[index] = (name, offset, size, "int", sig)


def test_a_changed_entry_signature_is_caught(header: layout.Header) -> None:
    fields = header.fields["sg_api"]
    index = [f[0] for f in fields].index("invalidate")
    name, offset, size, kind, sig = fields[index]
    fields[index] = (name, offset, size, kind, sig.replace("uint:8", "uint:4"))
    try:
        assert any("sg_api.invalidate" in p for p in layout.compare_struct("sg_api", header))
    finally:
        fields[index] = (name, offset, size, kind, sig)
