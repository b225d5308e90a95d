"""The negotiated function table of one loaded plugin.

``Api`` wraps the table sg_get_api_v1 returned and uses an entry, or a field
of an argument struct, only when the plugin's reported ABI minor has it (and,
for entries, when the table's struct_size covers it): a newer binding on an
older plugin gets a clear NotSupported instead of a call through garbage.
"""

from __future__ import annotations

import ctypes
from typing import Any, List, Optional, Tuple, Type, TypeVar

from . import _abi
from .errors import InvalidArgument, NotSupported

T = TypeVar("T", bound=_abi.AbiStruct)


class Api:
    """One plugin's table. `table` is the plugin's static sg_api (or a copy of
    it); `keepalive` holds whatever must outlive it (the loaded library)."""

    def __init__(
        self,
        table: _abi.Api,
        plugin_abi_version: int,
        library_version: str,
        path: str,
        keepalive: Any = None,
    ) -> None:
        self.table = table
        self.abi_version = plugin_abi_version
        self.minor = _abi.version_minor(plugin_abi_version)
        self.library_version = library_version
        self.path = path
        self._keepalive = keepalive

    def __repr__(self) -> str:
        major = _abi.version_major(self.abi_version)
        return f"<stepgraph.Api {self.path} ABI {major}.{self.minor} {self.library_version}>"

    def has(self, entry: str) -> bool:
        """Whether the plugin implements table entry `entry`."""
        return (
            _abi.Api.field_since(entry) <= self.minor
            and self.table.struct_size >= _abi.Api.field_end(entry)
            and bool(getattr(self.table, entry))
        )

    def entry(self, name: str) -> Any:
        """The C function of table entry `name`; NotSupported if the plugin's
        ABI minor (or its table) lacks it."""
        if not self.has(name):
            raise NotSupported(
                _abi.Status.ERR_NOT_SUPPORTED,
                f"{name}: the plugin ({self.path}, ABI 1.{self.minor}) has no such "
                f"entry; it needs ABI 1.{_abi.Api.field_since(name)}",
            )
        return getattr(self.table, name)

    def fields(self, cls: Type[_abi.AbiStruct]) -> List[str]:
        """The fields of struct `cls` that the plugin's ABI minor has."""
        return [name for name in cls.field_names() if cls.field_since(name) <= self.minor]

    def new(self, cls: Type[T], label: str = "", **values: Any) -> T:
        """A struct with struct_size set and `values` filled in. Setting a
        field the plugin's minor lacks is refused (the plugin would ignore
        it), and so is an integer its C type cannot hold (ctypes would wrap
        it). `label` names the struct in messages ("params[2]")."""
        struct = cls()
        struct.struct_size = ctypes.sizeof(cls)
        for name, value in values.items():
            where = f"{label or cls.__name__}.{name}"
            if cls.field_since(name) > self.minor:
                raise NotSupported(
                    _abi.Status.ERR_NOT_SUPPORTED,
                    f"{where} needs ABI 1.{cls.field_since(name)}; the plugin "
                    f"({self.path}) implements ABI 1.{self.minor}",
                )
            check_int(where, cls.field(name).ctype, value)
            try:
                setattr(struct, name, value)
            except (TypeError, ValueError) as exc:
                raise InvalidArgument(_abi.Status.ERR_INVALID_ARGUMENT, f"{where}: {exc}") from None
        return struct

    def read(self, struct: _abi.AbiStruct) -> dict:
        """The fields of an out struct that the plugin wrote (its minor's)."""
        return {name: getattr(struct, name) for name in self.fields(type(struct))}

    def status_string(self, status: int) -> str:
        """The plugin's static English string for any status."""
        text: Optional[bytes] = self.entry("status_string")(status)
        return (text or b"").decode("utf-8", "replace")

    def last_error(self, session: Optional[int]) -> str:
        """The session's detail message (session None: the calling thread's
        last failure that had no session)."""
        fn = self.entry("last_error")
        needed = ctypes.c_size_t(0)
        fn(session, None, 0, ctypes.byref(needed))
        buf = ctypes.create_string_buffer(needed.value + 1)
        fn(session, buf, len(buf), None)
        return buf.value.decode("utf-8", "replace")


def _int_range(ctype: Any) -> Optional[Tuple[int, int]]:
    """The [lowest, highest] value an integer or address C type holds (None:
    not one)."""
    if ctype is ctypes.c_void_p:
        return 0, (1 << (8 * ctypes.sizeof(ctype))) - 1
    if not (isinstance(ctype, type) and issubclass(ctype, ctypes._SimpleCData)):
        return None
    if getattr(ctype, "_type_", None) not in tuple("bBhHiIlLqQ"):
        return None
    bits = 8 * ctypes.sizeof(ctype)
    if ctype(-1).value < 0:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def check_int(where: str, ctype: Any, value: Any) -> None:
    """InvalidArgument, naming `where`, unless `value` fits C type `ctype`."""
    bounds = _int_range(ctype)
    if bounds is None or (value is None and ctype is ctypes.c_void_p):  # NULL
        return
    if not isinstance(value, int):
        raise InvalidArgument(
            _abi.Status.ERR_INVALID_ARGUMENT,
            f"{where} is {value!r}, not an integer",
        )
    low, high = bounds
    if not low <= value <= high:
        raise InvalidArgument(
            _abi.Status.ERR_INVALID_ARGUMENT,
            f"{where} is {value}, outside the range of its C type [{low}, {high}]",
        )
