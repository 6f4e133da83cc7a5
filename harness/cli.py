"""The command line: ``swarbench list | run | report`` and the sub-commands plugins add.

Bad input of any kind ends in one line on stderr and exit code 2; a run with a wrong implementation exits 1;
an interrupted run saves what it measured and exits 130; compare's gate exits 1 on a regression and 3 where it
cannot tell one of its threshold from none. The commands are built on swarbench.api; the
[tool.swarbench] table of ./pyproject.toml gives the options their defaults (swarbench.config).

Only what parsing needs is imported up front: pandas, SciPy and the engine wait for the command that uses them,
so `--help`, `list` and the suites' contest clients start fast.
"""
from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
from pathlib import Path
from typing import Optional, Sequence

from swarbench import api, config, fleet_options, noise, registry as registry_mod, scaffold
from swarbench.config import EXPORT_FORMATS, FORMATS
from swarbench.errors import OutputError, UsageError
from swarbench.model import InvalidInput, matches

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_UNRESOLVED = 3  # compare's gate: no regression, but some intervals too wide to tell one of the threshold


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print the whole usage block; one line is enough
        raise UsageError(f"{message} (see `{self.prog} --help`)")


# Counts above these are no request a machine can carry out: refused as bad input, not tried for days
LARGEST_SIZE = 2**62  # operations per batch; anything near it is refused by the memory check anyway
LARGEST_COUNT = 10**6  # rounds
LARGEST_STAGES = 1000  # workers and passes: each is a stretch of the whole run


def whole_number(text: str, least: int, largest: int, what: str) -> int:
    """An integer option written as 1000, 1_000 or 1e3, from ``least`` to ``largest``."""
    try:
        if "e" in text.lower():
            number = float(text)
            if math.isinf(number) and number > 0:  # 1e400 reads as inf, which no int holds
                raise argparse.ArgumentTypeError(f"{text!r} is too large (at most {largest:,})")
            if not math.isfinite(number):
                raise ValueError
            value = int(number)
            if number != value:
                raise ValueError
        else:
            value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    if value > largest:
        raise argparse.ArgumentTypeError(f"{text!r} is too large (at most {largest:,})")
    return value


def positive_int(text: str, largest: int = LARGEST_COUNT) -> int:
    return whole_number(text, 1, largest, "a positive integer")


def nonnegative_int(text: str) -> int:
    return whole_number(text, 0, LARGEST_COUNT, "a whole number (0 or more)")


def stage_count(text: str) -> int:
    return positive_int(text, LARGEST_STAGES)


def extra_stages(text: str) -> int:
    return whole_number(text, 0, LARGEST_STAGES, "a whole number (0 or more)")


def batch_size(text: str) -> int:
    return positive_int(text, LARGEST_SIZE)


def seed_value(text: str) -> int:
    # NumPy's generators take any integer from 0 up; 2**63 keeps it inside what a record's JSON and int64 hold
    return whole_number(text, 0, 2**63 - 1, "a seed (a whole number, 0 or more)")


def size_list(text: str) -> list[int]:
    try:
        return [batch_size(part.strip()) for part in text.split(",") if part.strip()] or batch_size("")
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"in {text!r}: {exc}") from None


def name_value(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name.strip(), value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):  # inf (or 1e400, which reads as inf) would never end a run or trip a gate
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
    return value


def add_selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel", "-k", action="append", default=[], metavar="PATTERN",
                   help="kernels whose id matches this shell pattern, e.g. 'cards.*' (repeatable; default all)")
    p.add_argument("--impl", "-i", action="append", default=[], metavar="PATTERN",
                   help="implementations whose name matches this pattern, e.g. 'c-*' (repeatable; default all)")


def build_parser(reg: registry_mod.Registry, settings: config.Settings = config.Settings({}),
                 argv: Optional[Sequence[str]] = None) -> Parser:
    """The whole command line. A plugin's sub-command gets its own options only when ``argv`` names it (all of
    them when ``argv`` is None): building them may import what the command runs on."""
    parser = Parser(prog="swarbench", description="Check, time and compare competing implementations of "
                                                  "bit-parallel game kernels.")
    parser.add_argument("--disable-plugin", action="append", default=[], metavar="NAME",
                        help="do not load this plugin (repeatable; also $SWARBENCH_DISABLE_PLUGINS=a,b)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("list", help="show suites, kernels, workloads and implementations, and what runs here",
                       description="Every kernel with its workloads and implementations: family, and whether it "
                                   "can run on this machine (with the reason when not).")
    add_selection(p)

    p = sub.add_parser("run", help="check every selected implementation against the oracle, then time it",
                       description="Verify, then time, every selected implementation on each kernel's workloads. "
                                   "Results land in REPORTS/<run-id>/ (results.csv, report.html, report.md, "
                                   "benchmark.json); the comparison is printed.")
    add_selection(p)
    p.add_argument("--workload", "-w", action="append", default=[], metavar="NAME",
                   help="run these workload kinds instead of each kernel's defaults (repeatable; see `list`)")
    p.add_argument("--size", "-n", type=batch_size, default=None, metavar="N",
                   help="operations per batch, e.g. 1048576 or 1e6 (default: each workload's own size)")
    p.add_argument("--sizes", type=size_list, default=[], metavar="N1,N2,...",
                   help="scaling mode: measure every workload at each of these sizes, e.g. 1e3,1e4,1e5,1e6; "
                        "the report plots ns/op against N")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the input generators (default 0)")
    p.add_argument("--param", action="append", default=[], type=name_value, metavar="NAME=VALUE",
                   help="a parameter of the workloads that declare it, e.g. --param hero='7h 2c' (repeatable; "
                        "`swarbench list` shows each workload's parameters and defaults)")
    p.add_argument("--processes", "-p", type=stage_count, default=1, metavar="P",
                   help="fresh worker processes, run one after another, each in its own shuffled order; their "
                        "samples are merged and their medians compared (default 1; batches over 0.5 s are timed "
                        "only by the first --min-rounds workers)")
    p.add_argument("--passes", type=stage_count, default=6, metavar="K",
                   help="in each worker, go through the whole run K times, each workload's implementations "
                        "reshuffled in every pass, timing a K-th of every case's rounds per pass (default 6)")
    p.add_argument("--settle", type=extra_stages, default=0, metavar="K",
                   help="up to K extra workers, one after another, for the cases whose workers' medians differ by "
                        "more than 10%%, long batches aside (default 0)")
    p.add_argument("--keep-slowed", action="store_true", default=True,
                   help="keep every sample in the medians, those of passes the canary found the machine slowed "
                        "during too (the default)")
    p.add_argument("--set-aside-slowed", dest="keep_slowed", action="store_false",
                   help="set aside the samples of passes the canary found the machine slowed during, counted in "
                        "samples_slowed (as runs before this version did)")
    p.add_argument("--timeout", type=positive_float, default=600.0, metavar="SECONDS",
                   help="a case (prepare, check and timing) running longer is stopped and reported as timed out "
                        "(default 600)")
    p.add_argument("--no-overhead", action="store_true",
                   help="skip timing the empty call of each family (the fixed cost shown beside each ns/op)")
    p.add_argument("--max-time", type=positive_float, default=0.1, metavar="SECONDS",
                   help="timing budget per measurement, shared by the workers (default 0.1)")
    p.add_argument("--min-rounds", type=positive_int, default=1, metavar="R",
                   help="at least this many timed batch calls per measurement, dealt out over the workers "
                        "(default 1: a batch of half a second or more is timed by the first worker alone)")
    p.add_argument("--short-rounds", type=nonnegative_int, default=6, metavar="R",
                   help="at least this many timed calls per measurement of a batch under 0.3 s, dealt out over the "
                        "workers, whatever --max-time (default 6)")
    p.add_argument("--reports", type=Path, default=api.reports_folder(), metavar="DIR",
                   help="where runs are saved (default ./reports or $SWARBENCH_REPORTS)")
    p.add_argument("--format", choices=FORMATS, default="text", help="what to print (default text)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    fleet_options.add_arguments(p)

    p = sub.add_parser("report", help="render a saved run again",
                       description="Render a saved run (a run id under REPORTS, a run folder, a results.csv, "
                                   "or 'latest') in any format.")
    p.add_argument("runs", nargs="+", metavar="RUN",
                   help="run id, run folder, results.csv path, or 'latest'; several runs (from several machines, "
                        "say) merge into one report with the run and machine beside each row")
    p.add_argument("--format", "-f", choices=FORMATS + EXPORT_FORMATS, default="text",
                   help="output format (default text); pytest-benchmark and github-action-benchmark "
                        "(customSmallerIsBetter) are JSON for those tools")
    p.add_argument("--output", "-o", type=Path, default=None, metavar="FILE", help="write here, not stdout")
    p.add_argument("--against", metavar="OTHER", default=None,
                   help="add a column with each measurement's change from run OTHER, as `compare` finds it")
    p.add_argument("--reports", type=Path, default=api.reports_folder(), metavar="DIR",
                   help="where runs are saved (default ./reports or $SWARBENCH_REPORTS)")

    p = sub.add_parser("compare", help="compare saved runs: change of each median, its interval, significance",
                       description="Compare runs benchstat-style: the first run is the reference. A change is "
                                   "shown only when a Mann-Whitney U test and the 95%% bootstrap interval of the "
                                   "ratio of medians agree; otherwise '~'. Runs from different machines compare too.")
    p.add_argument("runs", nargs="+", metavar="RUN", help="two or more runs (ids, folders or 'latest')")
    p.add_argument("--format", "-f", choices=("text", "md", "csv", "html"), default="text",
                   help="output format (html: one page with a chart of the changes)")
    p.add_argument("--relative", action="store_true",
                   help="take each change against the other implementations of its workload (their median "
                        "change, the drift, is divided out): a slow stretch of the whole machine between the runs "
                        "cancels, one implementation's regression does not; for CI gates on shared machines")
    p.add_argument("--fail-on-regression", type=positive_float, default=None, metavar="PCT",
                   help="exit 1 when a measurement is slower by more than PCT%% with its whole interval "
                        "beyond PCT (for CI gates); exit 3 when none is, but some interval is too wide to tell a "
                        "change of PCT%% from none")
    p.add_argument("--reports", type=Path, default=api.reports_folder(), metavar="DIR",
                   help="where runs are saved (default ./reports or $SWARBENCH_REPORTS)")

    scaffold.add_parser(sub)
    noise.add_parser(sub)

    p = sub.add_parser("history", help="one HTML page over every saved run: ns/op across commits, per machine",
                       description="Every run under REPORTS, grouped by machine and commit: per kernel and "
                                   "implementation, the median ns/op of each commit with its interval, and the "
                                   "changes `compare` calls regressions marked.")
    p.add_argument("--reports", type=Path, default=api.reports_folder(), metavar="DIR",
                   help="where runs are saved (default ./reports or $SWARBENCH_REPORTS)")
    p.add_argument("--output", "-o", type=Path, default=None, metavar="FILE",
                   help="where to write the page (default REPORTS/history.html)")

    for name, command in sorted(reg.commands.items()):
        named = argv is None or name in argv  # a command's own options are built only where it is used
        if named and not arguments_build(reg, name):
            continue
        p = sub.add_parser(name, help=command.help, description=command.help)
        if named:
            command.add_arguments(p)
    for name, p in sub.choices.items():  # [tool.swarbench] in place of the built-in defaults
        p.set_defaults(**settings.defaults(name))
    return parser


def arguments_build(reg, name: str) -> bool:
    """Whether plugin command ``name`` can build its options; one that raises is withdrawn and recorded as its
    plugin's failure. Tried on a parser of its own, so a half-built command is never left behind."""
    try:
        reg.commands[name].add_arguments(Parser(prog=f"swarbench {name}"))
        return True
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        reg.failures.append(registry_mod.PluginFailure(reg.owners.get(f"command:{name}", "?"),
                                                       f"the arguments of command {name!r}",
                                                       registry_mod.one_line(exc)))
        reg.commands.pop(name)
        return False


def cmd_list(args, reg) -> int:
    from swarbench import features

    for name in sorted(reg.commands):  # list is where a command that cannot even be parsed shows up
        arguments_build(reg, name)

    out = []
    for suite in sorted({k.suite for k in reg.kernels.values()}):
        out.append(f"{suite}  (plugin {reg.owners.get(next(k for k in reg.kernels if k.startswith(suite + '.')))})")
        for kid, kernel in sorted(reg.kernels.items()):
            if kernel.suite != suite or not matches(kid, args.kernel):
                continue
            run = "in the default run" if reg.in_default_run(kid) else f"not in the default run: -k {kid}"
            out.append(f"  {kid}: {kernel.description} [one op = one {kernel.unit}; {run}]")
            for kind in kernel.workloads:
                size = "fixed size" if kind.fixed_size else f"default n={kind.default_size:,}" + (
                    f", at most {kind.max_size:,}" if kind.max_size is not None else "")
                out.append(f"    workload {kind.name}{' (default)' if kind.default else ''}: {kind.description}; "
                           f"{size}")
                for pname, param in kind.parameters.items():
                    out.append(f"      --param {pname}=...: {param.description} (default {param.default!r})")
            for impl in sorted(reg.implementations_of(kid), key=lambda i: (i.family, i.name)):
                if not matches(impl.name, args.impl):
                    continue
                why = features.unavailable(impl.requires)
                state = "available" if not why else f"unavailable: {why}"
                if impl.expected_to_fail:
                    state += f"; kept wrong on purpose: {impl.expected_to_fail}"
                out.append(f"    {impl.name:<24} {impl.family:<16} {state}")
    for failure in reg.failures:
        out.append(f"plugin failed: {failure}")
    if reg.disabled:
        out.append(f"disabled plugins: {', '.join(reg.disabled)}")
    _say(sys.stdout, "\n".join(out) + "\n")
    return EXIT_FAILED if reg.failures else EXIT_OK  # what loaded is listed; a plugin that did not is an error


def cmd_run(args, reg) -> int:
    from swarbench import engine
    from swarbench.render import render
    from swarbench.render.live import LiveDisplay

    request = api.request(args.kernel, args.impl, workloads=args.workload, size=args.size, sizes=args.sizes,
                          seed=args.seed, params=dict(args.param), processes=args.processes, passes=args.passes,
                          settle=args.settle, keep_slowed=args.keep_slowed, timeout=args.timeout,
                          overhead=not args.no_overhead, max_time=args.max_time, min_rounds=args.min_rounds,
                          short_rounds=args.short_rounds, reports=args.reports,
                          disable_plugins=args.disable_plugin)
    on_fleet = bool(args.cluster or args.machines or args.machine_names)
    if args.quiet:
        listener = None
    elif on_fleet:
        from swarbench import fleet

        listener = fleet.machine_listener_factory(args.processes)
    else:
        listener = LiveDisplay(args.processes)
    measured = api.measure(request, reg, listener, command=shlex.join(["swarbench", *args.argv]),
                           fleet_args=args if on_fleet else None)
    outcome = measured.outcome
    _say(sys.stdout, render(args.format, measured.view) + f"saved {outcome.run_dir}/\n"
         f"(results.csv, report.html, report.md, benchmark.json); render again with "
         f"`swarbench report {outcome.run_id}`\n")
    if outcome.interrupted:
        return EXIT_INTERRUPTED
    failed = engine.failed_rows(outcome.frame)
    if len(failed):
        names = ", ".join(f"{r.kernel}/{r.implementation}" for r in failed.itertuples())
        _say(sys.stderr, f"swarbench: FAIL: {names}\n")
        return EXIT_FAILED
    if outcome.problems or outcome.frame.empty:
        _say(sys.stderr, f"swarbench: error: {(outcome.problems or ['nothing was measured'])[0]}\n")
        return EXIT_FAILED
    return EXIT_OK


def _say(stream, text: str) -> None:
    """Write a command's output; a reader that stopped reading (`| head`) changes nothing, since the results are
    saved and the exit code still says how the run went. Output that cannot be written (a full disk, /dev/full)
    is one line (OutputError). Either way the stream is pointed at os.devnull so that Python's own flush at exit
    does not fail on it again."""
    try:
        stream.write(text)
        stream.flush()
    except OSError as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        if not isinstance(exc, BrokenPipeError):
            name = getattr(stream, "name", "the output")
            raise OutputError(f"cannot write {'standard output' if name == '<stdout>' else name}: "
                              f"{exc.strerror or exc}") from None


def cmd_report(args, reg) -> int:
    text = api.report(*args.runs, format=args.format, reports=args.reports, registry=reg, against=args.against)
    if args.output is None:
        _say(sys.stdout, text)
        return EXIT_OK
    from swarbench import files

    try:
        files.write_atomic(args.output, text)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    _say(sys.stdout, f"wrote {args.output}\n")
    return EXIT_OK


def cmd_compare(args, reg) -> int:
    from swarbench import run_comparison
    from swarbench.render import comparison

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    frame = api.compare(*args.runs, reports=args.reports, relative=args.relative)
    geomeans = run_comparison.geomean_change(frame)
    threshold = args.fail_on_regression
    gate = run_comparison.regressions(frame, threshold) if threshold is not None else None
    unresolved = run_comparison.unresolved(frame, threshold) if threshold is not None else None
    if args.format == "csv":
        _say(sys.stdout, frame.to_csv(index=False))
    elif args.format == "md":
        _say(sys.stdout, comparison.render_md(frame, geomeans, gate))
    elif args.format == "html":
        _say(sys.stdout, comparison.render_html(frame, geomeans, gate))
    else:
        _say(sys.stdout, comparison.render_text(frame, geomeans, gate, unresolved, threshold,
                                                run_comparison.whole_run_moved(frame, threshold or 0)
                                                if threshold is not None else {}))
    if threshold is None:
        return EXIT_OK
    moved = run_comparison.whole_run_moved(frame, threshold)
    if moved:
        print(f"swarbench: {comparison.moved_summary(moved, threshold, len(gate))}", file=sys.stderr)
        return EXIT_UNRESOLVED
    if len(gate):
        print(f"swarbench: {len(gate)} regression(s) beyond {threshold:g}%", file=sys.stderr)
        return EXIT_FAILED
    if len(unresolved):
        print(f"swarbench: {comparison.unresolved_summary(unresolved, threshold)}", file=sys.stderr)
        return EXIT_UNRESOLVED
    return EXIT_OK


def _disabled_from_argv(argv: list[str]) -> list[str]:
    """--disable-plugin must act before the registry loads, which is before argparse can run."""
    out = []
    for i, a in enumerate(argv):
        if a == "--disable-plugin" and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif a.startswith("--disable-plugin="):
            out.append(a.split("=", 1)[1])
    return out


def cmd_plugin(args, reg) -> int:
    """A sub-command a plugin added: one that raises is one line naming the plugin and the command."""
    if args.command not in reg.commands:  # its plugin failed after adding the command (warned above)
        raise UsageError(f"command {args.command!r} is not available: its plugin failed to load")
    command = reg.commands[args.command]
    try:
        return int(command.run(args, reg) or 0)
    except (UsageError, InvalidInput, OutputError, BrokenPipeError, KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:
        plugin = reg.owners.get(f"command:{args.command}", "?")
        raise PluginCommandError(f"command {args.command!r} of plugin {plugin!r} failed: "
                                 f"{registry_mod.one_line(exc)}") from None


class PluginCommandError(Exception):
    """A plugin's sub-command raised: its own fault, not the user's input (exit 1)."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        settings = config.read()
        disable = _disabled_from_argv(argv) or settings.disabled_plugins  # given on the command line: those only
        # the sub-commands are enough to parse (and to answer --help); the suites' kernels load after
        parser = build_parser(registry_mod.load(disable=disable, stages=registry_mod.COMMANDS_ONLY), settings, argv)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help: its text still has to reach a reader
            _say(sys.stdout, "")
            return int(exc.code or 0)
        args.argv = argv
        if args.command is None:
            parser.print_help()
            _say(sys.stdout, "")
            return EXIT_USAGE
        settings.fill(args, args.command)
        args.disable_plugin = disable
        reg = registry_mod.load(disable=disable)
        for failure in reg.failures:
            print(f"swarbench: warning: {failure}; skipped", file=sys.stderr)
        if args.command == "list":
            code = cmd_list(args, reg)
        elif args.command == "run":
            code = cmd_run(args, reg)
        elif args.command == "report":
            code = cmd_report(args, reg)
        elif args.command == "compare":
            code = cmd_compare(args, reg)
        elif args.command == "history":
            from swarbench import history

            _say(sys.stdout, f"wrote {history.write(args.reports, args.output)}\n")
            code = EXIT_OK
        elif args.command == "new-plugin":
            code = scaffold.run(args, reg)
        elif args.command == "noise":
            code = noise.run(args, reg)
        else:
            code = cmd_plugin(args, reg)
        _say(sys.stdout, "")  # what a command printed is written out here, where a failure can still be said
        return code
    except (UsageError, InvalidInput) as exc:
        print(f"swarbench: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (OutputError, PluginCommandError) as exc:
        print(f"swarbench: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except BrokenPipeError:  # a reader that stopped reading a plugin command's output
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # a file of the run that could not be written: a full disk, a folder taken away
        what = (exc.strerror or type(exc).__name__).lower()
        print(f"swarbench: error: {what}: {exc.filename}" if exc.filename else f"swarbench: error: {what}",
              file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("swarbench: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
