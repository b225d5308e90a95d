"""Comparison of the layout printer's records (tests/python) with the ctypes
mirror in stepgraph._abi. Each function returns the mismatches it found, as
sentences; an empty list means the mirror matches the header."""

from __future__ import annotations

import ctypes
import subprocess
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple, Union

from stepgraph import _abi


@dataclass
class Header:
    """What the printer said about abi/stepgraph.h."""

    structs: Dict[str, int] = field(default_factory=dict)
    fields: Dict[str, List[Tuple[str, int, int, str, str]]] = field(default_factory=dict)
    fntypes: Dict[str, str] = field(default_factory=dict)
    enums: Dict[str, Dict[str, int]] = field(default_factory=dict)
    constants: Dict[str, Union[int, str]] = field(default_factory=dict)


def run_printer(path: str) -> Header:
    out = subprocess.run([path], check=True, capture_output=True, text=True).stdout
    return parse(out)


def parse(text: str) -> Header:
    header = Header()
    for line in text.splitlines():
        kind, *rest = line.split(" ")
        if kind == "struct":
            header.structs[rest[0]] = int(rest[1])
            header.fields[rest[0]] = []
        elif kind == "field":
            struct, name, offset, size, c_kind = rest[:5]
            sig = rest[5] if len(rest) > 5 else ""
            header.fields[struct].append((name, int(offset), int(size), c_kind, sig))
        elif kind == "fntype":
            header.fntypes[rest[0]] = rest[1]
        elif kind == "enum":
            header.enums.setdefault(rest[0], {})[rest[1]] = int(rest[2])
        elif kind == "const":
            value = line.split(" ", 3)[3]
            header.constants[rest[0]] = int(value) if rest[1] == "int" else value
        else:
            raise ValueError(f"unknown record: {line}")
    return header


def kind_of(ctype: Any) -> str:
    """The printer's kind (int, uint, float, ptr) of a ctypes type."""
    if ctype in (ctypes.c_void_p, ctypes.c_char_p) or issubclass(
        ctype, (ctypes._Pointer, ctypes._CFuncPtr)  # type: ignore[attr-defined]
    ):
        return "ptr"
    if issubclass(ctype, (ctypes.c_float, ctypes.c_double)):
        return "float"
    return "int" if ctype(-1).value < 0 else "uint"


def signature_of(function_type: Any) -> str:
    """A CFUNCTYPE's signature in the printer's notation."""
    ret = function_type._restype_
    parts = ["void" if ret is None else f"{kind_of(ret)}:{ctypes.sizeof(ret)}"]
    parts += [f"{kind_of(t)}:{ctypes.sizeof(t)}" for t in function_type._argtypes_]
    return "sig=" + ",".join(parts)


def _names(what: str, header: Any, mirror: Any) -> List[str]:
    missing = sorted(set(header) - set(mirror))
    extra = sorted(set(mirror) - set(header))
    problems = [f"{what} {n} is in the header but not in the mirror" for n in missing]
    return problems + [f"{what} {n} is in the mirror but not in the header" for n in extra]


def compare_struct(name: str, header: Header) -> List[str]:
    cls = _abi.STRUCTS[name]
    problems = []
    if ctypes.sizeof(cls) != header.structs[name]:
        problems.append(f"sizeof({name}) is {header.structs[name]}, the mirror's {ctypes.sizeof(cls)}")
    c_names = [f[0] for f in header.fields[name]]
    mirror_names = cls.field_names()
    if c_names != mirror_names:
        problems.append(f"{name}'s fields are {c_names}, the mirror's {mirror_names}")
    for fname, offset, size, c_kind, sig in header.fields[name]:
        if fname not in mirror_names:
            continue
        descriptor = getattr(cls, fname)
        ctype = cls.field(fname).ctype
        mirror = (descriptor.offset, descriptor.size, kind_of(ctype))
        if mirror != (offset, size, c_kind):
            problems.append(f"{name}.{fname}: header offset/size/kind {(offset, size, c_kind)}, mirror {mirror}")
        mirror_sig = signature_of(ctype) if issubclass(ctype, ctypes._CFuncPtr) else ""  # type: ignore[attr-defined]
        if mirror_sig != sig:
            problems.append(f"{name}.{fname}: header signature '{sig}', mirror '{mirror_sig}'")
        if cls.field_since(fname) > _abi.ABI_MINOR:
            problems.append(f"{name}.{fname} is marked since 1.{cls.field_since(fname)}, after the mirror's 1.{_abi.ABI_MINOR}")
    return problems


def compare_structs(header: Header) -> List[str]:
    problems = _names("struct", header.structs, _abi.STRUCTS)
    for name in sorted(set(header.structs) & set(_abi.STRUCTS)):
        problems += compare_struct(name, header)
    return problems


def compare_function_types(header: Header) -> List[str]:
    problems = _names("function type", header.fntypes, _abi.FUNCTION_TYPES)
    for name in sorted(set(header.fntypes) & set(_abi.FUNCTION_TYPES)):
        mirror = signature_of(_abi.FUNCTION_TYPES[name])
        if mirror != header.fntypes[name]:
            problems.append(f"{name}: header '{header.fntypes[name]}', mirror '{mirror}'")
    return problems


def compare_enums(header: Header) -> List[str]:
    problems = _names("enum", header.enums, _abi.ENUMS)
    for name in sorted(set(header.enums) & set(_abi.ENUMS)):
        mirror_cls, prefix = _abi.ENUMS[name]
        mirror = {prefix + m.name: int(m.value) for m in mirror_cls}  # type: ignore[attr-defined]
        problems += _names(f"{name} enumerator", header.enums[name], mirror)
        for c_name, value in header.enums[name].items():
            if c_name in mirror and mirror[c_name] != value:
                problems.append(f"{c_name} is {value} in the header, {mirror[c_name]} in the mirror")
    return problems


def compare_constants(header: Header) -> List[str]:
    problems = _names("constant", header.constants, _abi.CONSTANTS)
    for name in sorted(set(header.constants) & set(_abi.CONSTANTS)):
        if header.constants[name] != _abi.CONSTANTS[name]:
            problems.append(f"{name} is {header.constants[name]!r}, the mirror's {_abi.CONSTANTS[name]!r}")
    return problems


def compare(header: Header) -> List[str]:
    """Every mismatch between the header and the mirror."""
    return (
        compare_structs(header)
        + compare_function_types(header)
        + compare_enums(header)
        + compare_constants(header)
    )
