"""The lifetime rule: the plugin keeps registered device pointers until the
session is destroyed, so the session keeps every registered owner (and a
refresh's no-op flag, which a captured refresh bakes in) until close()."""

from __future__ import annotations

import ctypes
import gc
import weakref
from typing import Any

import pytest

import stepgraph
from helpers import STREAM, TableDouble, fp8_param


class Owner:
    """Stands in for the tensors behind a registration."""


def _collected(ref: "weakref.ref[Owner]") -> bool:
    gc.collect()
    return ref() is None


def test_registered_owners_live_until_close(api: stepgraph.Api) -> None:
    session = stepgraph.Session(validation_only=True, library=api)
    param_owner, buffer_owner = Owner(), Owner()
    refs = [weakref.ref(param_owner), weakref.ref(buffer_owner)]
    session.register_fp8_params([fp8_param(0x100000, owner=param_owner)])
    session.register_static_buffers([stepgraph.StaticBuffer(0x900000, 64, owner=buffer_owner)])
    del param_owner, buffer_owner
    assert not any(_collected(r) for r in refs)
    assert len(session.kept) == 2
    session.close()
    assert all(_collected(r) for r in refs)
    assert session.kept == ()


def test_a_refused_registration_keeps_nothing(session: stepgraph.Session) -> None:
    owner = Owner()
    ref = weakref.ref(owner)
    with pytest.raises(stepgraph.InvalidArgument):
        session.register_fp8_params([fp8_param(0x100000, rows=0, owner=owner)])
    del owner
    assert _collected(ref)


def test_one_owner_of_several_params_is_kept_once(session: stepgraph.Session) -> None:
    owner = Owner()
    session.register_fp8_params([fp8_param(0x100000, owner=owner), fp8_param(0x200000, owner=owner)])
    assert session.kept == (owner,)


def test_noop_flag_is_kept_after_a_refresh(api: stepgraph.Api) -> None:
    """A refresh that a capture records bakes the flag's address into the
    graph, so the flag object is kept from a successful call on. (A double
    of post_optimizer_step: validation-only sessions refuse the launch.)"""
    seen = []

    def refresh(session: int, stream: int, args: Any) -> int:
        seen.append(ctypes.cast(args.contents.noop_flag, ctypes.c_void_p).value)
        return 0

    double = TableDouble(api, post_optimizer_step=refresh)

    class Flag:
        def data_ptr(self) -> int:
            return 0xA00000

    flag = Flag()
    ref = weakref.ref(flag)
    session = stepgraph.Session(validation_only=True, library=double.api)
    session.refresh(noop=flag, stream=STREAM)
    assert seen == [0xA00000]
    del flag
    assert not _collected(ref)
    session.close()
    assert _collected(ref)


def test_garbage_collected_session_is_destroyed(api: stepgraph.Api) -> None:
    owner = Owner()
    ref = weakref.ref(owner)
    session = stepgraph.Session(validation_only=True, library=api)
    session.register_fp8_params([fp8_param(0x100000, owner=owner)])
    del owner, session
    assert _collected(ref)
