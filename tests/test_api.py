"""swarbench.api: run, load, report and compare from Python, as a notebook would."""

from __future__ import annotations

import re

import pytest

from swarbench import api
from swarbench.errors import UsageError

TINY = dict(size=64, max_time=0.005, min_rounds=1, processes=1, overhead=False)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    reports = tmp_path_factory.mktemp("reports")
    frame = api.run("cards.remove", "*swar*", reports=reports, **TINY)
    return reports, frame


@pytest.mark.slow
def test_run_returns_the_tidy_frame_of_a_saved_run(saved):
    reports, frame = saved
    passed = frame[frame.status == "PASS"]
    assert len(passed) >= 2 and set(frame.kernel) == {"cards.remove"}
    assert (passed.n == 64).all() and (passed.ns_per_op_median > 0).all()
    assert frame.implementation.str.contains("swar").all()
    run_dir = reports / frame.attrs["run_id"]
    assert frame.attrs["run_dir"] == str(run_dir.resolve())
    for name in ("results.csv", "report.html", "report.md", "records.jsonl"):
        assert (run_dir / name).exists(), name
    assert frame.attrs["machine"]["cpu"] and frame.attrs["interrupted"] is False


@pytest.mark.slow
def test_load_gives_back_what_run_returned(saved):
    reports, frame = saved
    for run in (frame.attrs["run_id"], "latest", frame.attrs["run_dir"]):
        loaded = api.load(run, reports=reports)
        assert list(loaded.implementation) == list(frame.implementation)
        assert loaded.ns_per_op_median.tolist() == pytest.approx(frame.ns_per_op_median.tolist(), nan_ok=True)
        assert loaded.attrs["machines"] == {frame.attrs["run_id"]: frame.attrs["machine"]}


@pytest.mark.slow
def test_report_renders_a_frame_or_a_saved_run(saved):
    reports, frame = saved
    assert "BenchmarkRemove/" in api.report(frame)
    # columns are padded to their widest cell, which depends on which implementation came out fastest
    assert re.search(r"\| implementation +\|", api.report(frame.attrs["run_id"], format="md", reports=reports))
    with pytest.raises(UsageError, match="format 'pdf'"):
        api.report(frame, format="pdf")


@pytest.mark.slow
def test_compare_a_run_with_itself_finds_no_change(saved):
    reports, frame = saved
    change = api.compare(frame.attrs["run_id"], frame.attrs["run_dir"], reports=reports)
    assert len(change) == (frame.status == "PASS").sum()
    assert (change["change"].abs() < 1e-12).all() and not change["significant"].any()
    by_frames = api.compare(frame, api.load("latest", reports=reports))  # frames of one run name their run
    assert by_frames["change"].tolist() == change["change"].tolist()
    with pytest.raises(UsageError, match="several runs"):
        api.compare(frame, api.load(frame.attrs["run_id"], frame.attrs["run_id"], reports=reports))


@pytest.mark.parametrize(
    "options, words",
    [
        (dict(processes=0), ["processes = 0", "positive integer"]),
        (dict(max_time="fast"), ["max_time", "number above 0"]),
        (dict(kernels=["cards.*", None]), ["kernels", "list of strings"]),
    ],
)
def test_bad_arguments_are_one_line_naming_the_argument(options, words):
    with pytest.raises(UsageError) as err:
        api.request(**options)
    assert "\n" not in str(err.value) and str(err.value).startswith("swarbench.run(): ")
    for word in words:
        assert word in str(err.value)


def test_an_unknown_kernel_or_run_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no kernel matches 'nope.*'"):
        api.run("nope.*", reports=tmp_path, **TINY)
    with pytest.raises(UsageError, match="no run 'missing'"):
        api.load("missing", reports=tmp_path)
    with pytest.raises(UsageError, match="at least one run"):
        api.load()


def test_a_request_holds_the_options_given_and_the_defaults_otherwise(tmp_path):
    request = api.request(
        "cards.*", size=1e3, sizes=[1000, 4000], params={"hero": "7h 2c"}, reports=tmp_path, disable_plugins="poker"
    )
    assert request.kernels == ["cards.*"] and request.sizes == [1000, 4000]
    assert request.params == {"hero": "7h 2c"} and request.disable == ["poker"] and request.reports_dir == tmp_path
    assert request.processes == type(request)().processes  # not given: the engine's default


@pytest.mark.parametrize("name", api.__all__)
def test_no_module_of_the_package_takes_an_api_name(name):
    """``swarbench.compare`` may be exported as the function only if no module swarbench.compare exists: importing
    a submodule sets the package's attribute of that name, and the function would become the module."""
    import importlib.util

    assert importlib.util.find_spec(f"swarbench.{name}") is None
