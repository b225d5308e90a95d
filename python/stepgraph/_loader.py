"""Finding libstepgraph.so.1 and negotiating the ABI with it.

Where the library comes from, first match wins:
  1. an explicit path (``load(path)``, ``Session(library=path)``);
  2. the ``STEPGRAPH_LIBRARY`` environment variable;
  3. the build tree, when this package runs from a checkout of the
     repository: ``$STEPGRAPH_BUILD_DIR`` (default ``<checkout>/build``)
     ``/plugin/libstepgraph.so.1``;
  4. the system loader (``libstepgraph.so.1`` on the library path).
An explicit path or the variable is used alone: when it cannot be loaded,
that is the error, rather than silently loading another copy.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from . import _abi
from ._api import Api
from .errors import LibraryNotFound, VersionError, error_for

ENV_LIBRARY = "STEPGRAPH_LIBRARY"
ENV_BUILD_DIR = "STEPGRAPH_BUILD_DIR"
SONAME = "libstepgraph.so.1"

PathLike = Union[str, "os.PathLike[str]"]

_loaded: Dict[str, Api] = {}
_lock = threading.Lock()


def _checkout_library() -> Optional[str]:
    """The build tree's library when this package lives in a checkout."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "abi" / "stepgraph.h").is_file():
        return None
    build = Path(os.environ.get(ENV_BUILD_DIR) or root / "build")
    candidate = build / "plugin" / SONAME
    return str(candidate) if candidate.exists() else None


def candidates(path: Optional[PathLike] = None) -> List[Tuple[str, str]]:
    """(where, what to dlopen) in the order they are tried."""
    if path is not None:
        return [("the explicit path", os.fspath(path))]
    env = os.environ.get(ENV_LIBRARY)
    if env:
        return [(ENV_LIBRARY, env)]
    found: List[Tuple[str, str]] = []
    checkout = _checkout_library()
    if checkout is not None:
        found.append(("the checkout's build tree", checkout))
    found.append(("the system loader", SONAME))
    return found


def _negotiate(lib: ctypes.CDLL, path: str) -> Api:
    get_api = _abi.GetApiFn((_abi.GET_API_SYMBOL, lib))
    args = _abi.GetApiArgs(host_abi_version=_abi.ABI_VERSION)
    args.struct_size = ctypes.sizeof(args)
    status = get_api(ctypes.byref(args))
    if status != _abi.Status.OK:
        detail = (args.error or b"").decode("utf-8", "replace") or "no detail"
        raise error_for(status, f"{path}: {detail}")
    major = _abi.version_major(args.plugin_abi_version)
    if major != _abi.ABI_MAJOR or not args.api:
        raise VersionError(
            _abi.Status.ERR_VERSION,
            f"{path} implements stepgraph ABI {major}."
            f"{_abi.version_minor(args.plugin_abi_version)}; this binding needs "
            f"{_abi.ABI_MAJOR}.x",
        )
    version = (args.library_version or b"").decode("utf-8", "replace")
    return Api(args.api.contents, args.plugin_abi_version, version, path, keepalive=lib)


def load(path: Optional[PathLike] = None) -> Api:
    """Loads the plugin (see the module's search order), negotiates the ABI
    and returns its table. The same library is loaded and negotiated once;
    its table is static and stays valid (the library is never unloaded)."""
    failures: List[str] = []
    for where, what in candidates(path):
        with _lock:
            if what in _loaded:
                return _loaded[what]
            try:
                lib = ctypes.CDLL(what, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            except OSError as exc:
                failures.append(f"{where} ({what}): {exc}")
                continue
            try:
                api = _negotiate(lib, what)
            except AttributeError:
                raise LibraryNotFound(
                    None, f"{what} (from {where}) has no {_abi.GET_API_SYMBOL}: not a stepgraph plugin"
                ) from None
            _loaded[what] = api
            return api
    raise LibraryNotFound(None, "cannot load libstepgraph.so.1: " + "; ".join(failures))
