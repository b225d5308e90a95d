"""Every entry of the table through the binding, on validation-only sessions
(no GPU): what works there, and each error path with its status and the
plugin's detail message."""

from __future__ import annotations

from pathlib import Path

import pytest

import stepgraph
from helpers import STREAM, cast_param, fp8_param
from stepgraph import RefreshMode, Status, StepAction


def test_status_strings(api: stepgraph.Api) -> None:
    assert api.status_string(Status.OK) == "success"
    assert "eagerly" in api.status_string(Status.RUN_EAGERLY)
    assert api.status_string(999) == "unknown status"


def test_session_lifecycle(api: stepgraph.Api) -> None:
    s = stepgraph.Session(validation_only=True, library=api)
    assert isinstance(s.handle, int) and not s.closed
    s.close()
    s.close()  # idempotent
    assert s.closed and s.handle is None
    with pytest.raises(stepgraph.InvalidState, match="get_stats: the session is closed"):
        s.stats()


def test_context_manager_closes(api: stepgraph.Api) -> None:
    with stepgraph.Session(validation_only=True, library=api) as s:
        assert not s.closed
    assert s.closed


@pytest.mark.parametrize(
    "config, error, detail",
    [
        ({"device": -1}, stepgraph.InvalidArgument, "session_create: config->device is -1"),
        ({"capture_mode": 7}, stepgraph.InvalidArgument, "config->capture_mode is 7"),
        ({"param_capacity": 1 << 21}, stepgraph.InvalidArgument, "param_capacity is 2097152"),
        ({"static_capacity": 1 << 17}, stepgraph.InvalidArgument, "static_capacity is 131072"),
        ({"log_level": -2}, stepgraph.InvalidArgument, "config->log_level is -2"),
    ],
)
def test_session_create_refuses_bad_config(api: stepgraph.Api, config: dict, error: type, detail: str) -> None:
    with pytest.raises(error, match=detail) as info:
        stepgraph.Session(validation_only=True, library=api, **config)
    assert info.value.status == Status.ERR_INVALID_ARGUMENT
    assert detail in info.value.detail


def test_config_values_outside_their_c_type_are_refused(api: stepgraph.Api) -> None:
    with pytest.raises(stepgraph.InvalidArgument, match=r"config.warmup_steps is -1, outside"):
        stepgraph.Session(validation_only=True, library=api, warmup_steps=-1)
    with pytest.raises(stepgraph.InvalidArgument, match="config.rng_seed is 'x', not an integer"):
        stepgraph.Session(validation_only=True, library=api, rng_seed="x")  # type: ignore[arg-type]


def test_register_fp8_params(session: stepgraph.Session) -> None:
    assert session.register_fp8_params([fp8_param(0x100000), cast_param(0x200000)]) == 0
    assert session.register_fp8_params([fp8_param(0x300000, group=3)]) == 2
    assert session.stats().fp8_params == 3


@pytest.mark.parametrize(
    "param, detail",
    [
        (fp8_param(0x100000, rows=0), "params[1].rows is 0"),
        (fp8_param(0x100000, ld_data=3), "params[1].ld_data is 3, less than the width 8"),
        (fp8_param(0x100000, data=0), "params[1].data is NULL"),
        (fp8_param(0x100000, format=9), "params[1].format"),
        (fp8_param(0x100000, master_dtype=stepgraph.DType.FP32), "params[1].master is NULL"),
        (fp8_param(0x100000, group=stepgraph.ALL_GROUPS), "params[1].group"),
    ],
)
def test_register_fp8_params_names_the_bad_field(
    session: stepgraph.Session, param: stepgraph.Fp8Param, detail: str
) -> None:
    with pytest.raises(stepgraph.InvalidArgument) as info:
        session.register_fp8_params([fp8_param(0x500000), param])
    assert detail in info.value.detail
    assert info.value.detail == session.last_error()
    assert session.stats().fp8_params == 0  # all or none


def test_register_fp8_params_refuses_overlap_and_empty(session: stepgraph.Session) -> None:
    session.register_fp8_params([fp8_param(0x100000)])
    with pytest.raises(stepgraph.InvalidArgument, match="overlap"):
        session.register_fp8_params([fp8_param(0x100000)])
    with pytest.raises(stepgraph.InvalidArgument, match="count is 0"):
        session.register_fp8_params([])


def test_register_fp8_params_negative_row_count_is_ours(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.InvalidArgument, match=r"params\[0\].rows is -4, outside"):
        session.register_fp8_params([fp8_param(0x100000, rows=-4)])


def test_register_fp8_params_capacity(api: stepgraph.Api) -> None:
    with stepgraph.Session(validation_only=True, param_capacity=2, library=api) as s:
        s.register_fp8_params([fp8_param(0x100000), fp8_param(0x200000)])
        with pytest.raises(stepgraph.CapacityError, match="param_capacity 2"):
            s.register_fp8_params([fp8_param(0x300000)])


def test_register_static_buffers(api: stepgraph.Api) -> None:
    with stepgraph.Session(validation_only=True, static_capacity=3, library=api) as s:
        assert s.register_static_buffers([stepgraph.StaticBuffer(0x100000, 256)]) == 0
        assert s.register_static_buffers([stepgraph.StaticBuffer(0x200000, 64)]) == 1
        assert s.stats().static_buffers == 2
        with pytest.raises(stepgraph.InvalidArgument, match=r"buffers\[0\].bytes is 0"):
            s.register_static_buffers([stepgraph.StaticBuffer(0x300000, 0)])
        with pytest.raises(stepgraph.InvalidArgument, match="overlaps"):
            s.register_static_buffers([stepgraph.StaticBuffer(0x100080, 16)])
        with pytest.raises(stepgraph.CapacityError):
            s.register_static_buffers([stepgraph.StaticBuffer(0x400000, 8)] * 2)


def test_pre_capture(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.InvalidArgument, match="pre_capture: stream is the legacy default stream"):
        session.pre_capture()
    session.pre_capture(STREAM)


def test_capture_begin_needs_pre_capture_then_a_device(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.InvalidState, match="call pre_capture first"):
        session.capture_begin(1, STREAM)
    session.pre_capture(STREAM)
    with pytest.raises(stepgraph.NoDevice, match="capture_begin: needs a GPU"):
        session.capture_begin(1, STREAM)
    with pytest.raises(stepgraph.InvalidArgument, match="args->stream is the legacy"):
        session.capture_begin(1, 0)
    with pytest.raises(stepgraph.InvalidArgument, match="args->capture_mode is 5"):
        session.capture_begin(1, STREAM, mode=5)  # type: ignore[arg-type]


def test_capture_context_manager_raises_no_device(session: stepgraph.Session) -> None:
    session.pre_capture(STREAM)
    ran = []
    with pytest.raises(stepgraph.NoDevice):
        with session.capture(1, STREAM):
            ran.append(True)
    assert ran == []


def test_capture_end_without_capture(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.InvalidState, match="capture_end: no capture in progress"):
        session.capture_end(1, STREAM)


def test_invalidate_unknown_key(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.NotFound, match="invalidate: key 42 has no graph") as info:
        session.invalidate(42)
    assert info.value.status == Status.ERR_NOT_FOUND


def test_refresh_checks_then_needs_a_device(session: stepgraph.Session) -> None:
    session.register_fp8_params([fp8_param(0x100000, group=1), cast_param(0x200000, group=2)])
    with pytest.raises(stepgraph.NoDevice, match="post_optimizer_step: needs a GPU"):
        session.refresh(RefreshMode.TRANSPOSE)
    with pytest.raises(stepgraph.NoDevice):
        session.refresh(RefreshMode.CAST, group=2, noop=0x900000)
    with pytest.raises(stepgraph.InvalidState, match="registered param 0 has no master"):
        session.refresh(RefreshMode.CAST_TRANSPOSE)
    with pytest.raises(stepgraph.InvalidArgument, match="args->group 9 has no registered parameter"):
        session.refresh(group=9)
    with pytest.raises(stepgraph.InvalidArgument, match="args->mode is 3"):
        session.refresh(3)  # type: ignore[arg-type]


def test_refresh_without_params_launches_nothing(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.NoDevice):
        session.refresh()  # the device check comes before the empty launch


def test_replay_never_captured(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.InvalidState, match="replay: key 3 has not been captured"):
        session.replay(3, STREAM)
    session.register_static_buffers([stepgraph.StaticBuffer(0x100000, 64)])
    with pytest.raises(stepgraph.InvalidArgument, match="static_source_count is 2 but 1 static buffers"):
        session.replay(3, STREAM, static_sources=[0x200000, None])
    with pytest.raises(stepgraph.InvalidArgument, match="args->stream is the legacy"):
        session.replay(3, 0)


def test_step_needs_a_device(session: stepgraph.Session) -> None:
    calls = []
    with pytest.raises(stepgraph.NoDevice, match="step: needs a GPU"):
        session.step(calls.append, key=1, stream=STREAM)
    assert calls == []  # refused before the callback
    with pytest.raises(stepgraph.InvalidArgument, match="args->stream is the legacy"):
        session.step(calls.append, key=1, stream=0)


def test_rng_reserve(session: stepgraph.Session) -> None:
    assert session.rng_reserve(100) == 0
    assert session.rng_reserve(28) == 100
    assert session.rng_reserve(1) == 128
    with pytest.raises(stepgraph.InvalidArgument, match="rng_reserve: count is 0"):
        session.rng_reserve(0)
    with pytest.raises(stepgraph.InvalidArgument, match="overflows the step's offsets"):
        session.rng_reserve((1 << 64) - 1)
    with pytest.raises(stepgraph.InvalidArgument, match="count is -1, outside"):
        session.rng_reserve(-1)


def test_rng_state_without_a_device(api: stepgraph.Api) -> None:
    """ABI 1.1: validation-only sessions keep the RNG state on the host."""
    with stepgraph.Session(validation_only=True, rng_seed=99, library=api) as session:
        assert session.rng_get_state(STREAM) == stepgraph.RngState(seed=99, offset=0)
        session.rng_reserve(100)
        session.rng_reserve(28)
        session.rng_end_step(STREAM)
        assert session.rng_get_state(STREAM) == stepgraph.RngState(seed=99, offset=128)
        assert session.rng_reserve(5) == 0  # the step's offsets restart
        session.rng_set_state(stepgraph.RngState(seed=7, offset=44), STREAM)
        assert session.rng_get_state(STREAM) == stepgraph.RngState(seed=7, offset=44)
        placeholders = stepgraph.RngDeviceState(stepgraph.RNG_PLACEHOLDER_SEED, stepgraph.RNG_PLACEHOLDER_BASE_OFFSET)
        assert session.rng_device_state() == placeholders
        with pytest.raises(stepgraph.InvalidArgument, match="rng_get_state: stream is the legacy"):
            session.rng_get_state(0)


def test_step_plan_counts_warmup_then_capture(api: stepgraph.Api) -> None:
    with stepgraph.Session(validation_only=True, warmup_steps=2, library=api) as session:
        plans = [session.step_plan(4) for _ in range(3)]
        assert [p.action for p in plans] == [StepAction.WARMUP, StepAction.WARMUP, StepAction.CAPTURE]
        assert [p.step_index for p in plans] == [0, 1, 2]
        assert plans[2].pre_capture and not plans[0].pre_capture
        session.pre_capture(STREAM)
        assert session.step_plan(4) == stepgraph.StepPlan(StepAction.CAPTURE, False, 3)
        assert session.step_plan(5).action == StepAction.WARMUP  # counted per key


def test_step_plan_with_graphs_disabled(api: stepgraph.Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPGRAPH_DISABLE", "1")
    with stepgraph.Session(validation_only=True, library=api) as session:
        assert session.step_plan(1).action == StepAction.EAGER
        assert session.stats().eager_runs == 1


def test_static_sources_are_checked_against_the_registered_buffers(session: stepgraph.Session) -> None:
    session.register_static_buffers([stepgraph.StaticBuffer(0x100000, 64)])
    with pytest.raises(stepgraph.InvalidArgument, match="step: args->static_source_count is 2 but 1 static buffers"):
        session.step(lambda ctx: None, key=1, stream=STREAM, static_sources=[0x200000, 0x300000])
    with pytest.raises(stepgraph.NoDevice):
        session.step(lambda ctx: None, key=1, stream=STREAM, static_sources=[0x200000], host_sources=True)


def test_stats_start_at_zero(session: stepgraph.Session) -> None:
    stats = session.stats()
    assert isinstance(stats, stepgraph.Stats)
    assert stats.captures == stats.replays == stats.graphs == 0
    assert stats.capture_ms == 0.0


def test_graph_info_and_dump_graph_without_graph(session: stepgraph.Session, tmp_path: Path) -> None:
    with pytest.raises(stepgraph.NotFound, match="graph_info: key 5 has no graph"):
        session.graph_info(5)
    with pytest.raises(stepgraph.NotFound, match="dump_graph: key 5 has no graph"):
        session.dump_graph(5, tmp_path / "g.dot")
    with pytest.raises(stepgraph.InvalidArgument, match="dump_graph: path is empty"):
        session.dump_graph(5, "")
    assert not (tmp_path / "g.dot").exists()


def test_sync_needs_a_device(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.NoDevice, match="sync: needs a GPU"):
        session.sync(STREAM, timeout_ms=10)
    with pytest.raises(stepgraph.InvalidArgument, match="sync: stream is the legacy"):
        session.sync(0)


def test_stream_objects(session: stepgraph.Session) -> None:
    class TorchLike:
        cuda_stream = STREAM

    class CupyLike:
        ptr = STREAM

    session.pre_capture(TorchLike())
    session.pre_capture(CupyLike())
    with pytest.raises(stepgraph.InvalidArgument, match="str is not a CUDA stream"):
        session.pre_capture("stream")


def test_addresses_from_objects(session: stepgraph.Session) -> None:
    class TensorLike:
        def data_ptr(self) -> int:
            return 0x700000

    class ArrayLike:
        __cuda_array_interface__ = {"data": (0x800000, False)}

    assert stepgraph.address_of(TensorLike()) == 0x700000
    assert stepgraph.address_of(ArrayLike()) == 0x800000
    assert stepgraph.address_of(None) == 0
    with pytest.raises(stepgraph.InvalidArgument, match="not a device address"):
        stepgraph.address_of(1.5)


def test_error_carries_status_and_detail(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.Error) as info:
        session.graph_info(8)
    error = info.value
    assert isinstance(error, stepgraph.NotFound)
    assert error.status is Status.ERR_NOT_FOUND
    assert error.detail == "graph_info: key 8 has no graph"
    assert str(error) == "graph_info: key 8 has no graph [ERR_NOT_FOUND]"


def test_unknown_status_still_raises_error() -> None:
    error = stepgraph.errors.error_for(77, "from a newer plugin")
    assert type(error) is stepgraph.Error and error.status == 77
    assert str(error) == "from a newer plugin [77]"


def test_wrong_types_are_invalid_arguments(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.InvalidArgument, match="args.mode is 'cast', not an integer"):
        session.refresh("cast")  # type: ignore[arg-type]
    with pytest.raises(stepgraph.InvalidArgument, match=r"params\[0\].format is None, not an integer"):
        session.register_fp8_params([fp8_param(0x100000, format=None)])


@pytest.mark.parametrize("status", [s for s in Status if s >= Status.ERR_INVALID_ARGUMENT])
def test_every_error_status_has_its_exception(status: Status) -> None:
    error = stepgraph.errors.error_for(int(status), "detail")
    assert type(error) is not stepgraph.Error and isinstance(error, stepgraph.Error)
    assert error.status is status and error.detail == "detail"
    assert type(error).__doc__.startswith(f"SG_{status.name}")
