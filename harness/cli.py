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
import functools
import os
import shlex
import sys
from pathlib import Path
from typing import Optional, Sequence

from swarbench import api, config, fleet_options, local, noise, options, registry as registry_mod, scaffold
from swarbench.options import EXPORT_FORMATS, FORMATS
from swarbench.errors import OutputError, UsageError
from swarbench.terminal_text import printable
from swarbench.model import InvalidInput, matches
from swarbench.signals import stop_signals_interrupt
from swarbench.spec_guard import SpecError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_UNRESOLVED = 3  # compare's gate: no regression, but some intervals too wide to tell one of the threshold


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print the whole usage block; one line is enough
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def build_parser(
    reg: registry_mod.Registry, settings: config.Settings = config.Settings({}), argv: Optional[Sequence[str]] = None
) -> Parser:
    """The whole command line. A plugin's sub-command gets its own options only when ``argv`` names it (all of
    them when ``argv`` is None): building them may import what the command runs on."""
    parser = Parser(
        prog="swarbench", description="Check, time and compare competing implementations of bit-parallel game kernels."
    )
    options.add_arguments(parser, "")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser(
        "list",
        help="show suites, kernels, workloads and implementations, and what runs here",
        description="Every kernel with its workloads and implementations: family, and whether it "
        "can run on this machine (with the reason when not).",
    )
    options.add_arguments(p, "list")

    p = sub.add_parser(
        "run",
        help="check every selected implementation against the oracle, then time it",
        description="Verify, then time, every selected implementation on each kernel's workloads. "
        "Results land in REPORTS/<run-id>/ (results.csv, report.html, report.md, "
        "benchmark.json); the comparison is printed.",
    )
    options.add_arguments(p, "run")
    fleet_options.add_arguments(p)

    p = sub.add_parser(
        "report",
        help="render a saved run again",
        description="Render a saved run (a run id under REPORTS, a run folder, a results.csv, "
        "or 'latest') in any format.",
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="run id, run folder, results.csv path, or 'latest'; several runs (from several machines, "
        "say) merge into one report with the run and machine beside each row",
    )
    options.add_arguments(p, "report", choices=EXPORT_FORMATS)
    p.add_argument("--output", "-o", type=Path, default=None, metavar="FILE", help="write here, not stdout")
    p.add_argument(
        "--against",
        metavar="OTHER",
        default=None,
        help="add a column with each measurement's change from run OTHER, as `compare` finds it",
    )

    p = sub.add_parser(
        "compare",
        help="compare saved runs: change of each median, its interval, significance",
        description="Compare runs benchstat-style: the first run is the reference. A change is "
        "shown only when a Mann-Whitney U test and the 95% bootstrap interval of the "
        "ratio of medians agree; otherwise '~'. Runs from different machines compare too.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="two or more runs (ids, folders or 'latest')")
    p.add_argument(
        "--format",
        "-f",
        choices=FORMATS,
        default="text",
        help="output format (html: one page with a chart of the changes)",
    )
    p.add_argument("--output", "-o", type=Path, default=None, metavar="FILE", help="write here, not stdout")
    judged = p.add_mutually_exclusive_group()
    judged.add_argument(
        "--relative",
        dest="relative",
        action="store_true",
        default=True,
        help="the default: take each change against the other implementations of its workload (their "
        "median change, the drift, is divided out), so a slower spell of the whole machine between the runs "
        "cancels and one implementation's regression does not; the gate names a workload that moved as a "
        "whole by the threshold or more",
    )
    judged.add_argument(
        "--absolute",
        dest="relative",
        action="store_false",
        help="take each row's own change, drift and all",
    )
    p.add_argument(
        "--fail-on-regression",
        type=options.argument_type(options.Positive()),
        default=None,
        metavar="PCT",
        help="exit 1 when a measurement is slower by more than PCT%% with its whole interval "
        "beyond PCT (for CI gates); exit 3 when none is, but the gate cannot tell a change of PCT%% "
        "from none somewhere: an interval that wide or none, passes at two speeds, a row on threads "
        "measured by too few processes, a workload that moved as a whole",
    )
    options.add_arguments(p, "compare")

    scaffold.add_parser(sub)
    noise.add_parser(sub)

    p = sub.add_parser(
        "history",
        help="one HTML page over every saved run: ns/op across commits, per machine",
        description="Every run under REPORTS, grouped by machine and commit: per kernel and "
        "implementation, the median ns/op of each commit with its interval, and the "
        "changes `compare` calls regressions marked.",
    )
    options.add_arguments(p, "history")
    p.add_argument(
        "--output",
        "-o",
        type=Path,
        default=None,
        metavar="FILE",
        help="where to write the page (default REPORTS/history.html)",
    )

    for name, command in sorted(reg.commands.items()):
        named = argv is None or name in argv  # a command's own options are built only where it is used
        if named and not arguments_build(reg, name):
            continue
        p = sub.add_parser(name, help=command.help, description=command.help)
        if named:
            command.add_arguments(p)
    parser.set_defaults(**settings.defaults(""))
    for name, p in sub.choices.items():  # [tool.swarbench] in place of the built-in defaults
        p.set_defaults(**settings.defaults(name))
    return parser


@functools.lru_cache(maxsize=None)
def builtin_commands() -> frozenset[str]:
    """The command line's own sub-commands: the names no plugin may take (swarbench.registry)."""
    parser = build_parser(registry_mod.Registry(), argv=[])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return frozenset(sub.choices)


def arguments_build(reg, name: str) -> bool:
    """Whether plugin command ``name`` can build its options; one that raises is withdrawn and recorded as its
    plugin's failure. Tried on a parser of its own, so a half-built command is never left behind."""
    try:
        reg.commands[name].add_arguments(Parser(prog=f"swarbench {name}"))
        return True
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        reg.failures.append(
            registry_mod.PluginFailure(
                reg.owners.get(f"command:{name}", "?"), f"the arguments of command {name!r}", registry_mod.one_line(exc)
            )
        )
        reg.commands.pop(name)
        return False


def cmd_list(args, reg) -> int:
    from swarbench import features

    for name in sorted(reg.commands):  # list is where a command that cannot even be parsed shows up
        arguments_build(reg, name)

    out = []
    local_kernels = set(reg.local_kernels()) if reg.local_asked else None  # where there are, a plain run's
    for suite in sorted({k.suite for kid, k in reg.kernels.items() if matches(kid, args.kernels)}):
        owner = reg.owners.get(next(k for k in sorted(reg.kernels) if k.startswith(suite + ".")))
        out.append(f"{suite}  ({'local ' if owner in reg.local else ''}plugin {owner})")
        for kid, kernel in sorted(reg.kernels.items()):
            if kernel.suite != suite or not matches(kid, args.kernels):
                continue
            default = reg.in_default_run(kid) and (local_kernels is None or kid in local_kernels)
            run = (
                "in the default run"
                if default
                else f"not in the default run: -k {kid}"
                + (f" -w {kernel.workloads[0].name}" if len(kernel.workloads) > 1 else "")
            )
            out.append(f"  {kid}: {kernel.description} [one op = one {kernel.unit}; {run}]")
            for kind in kernel.workloads:
                size = (
                    "fixed size"
                    if kind.fixed_size
                    else f"default n={kind.default_size:,}"
                    + (f", at most {kind.max_size:,}" if kind.max_size is not None else "")
                )
                out.append(
                    f"    workload {kind.name}{' (default)' if kind.default else ''}: {kind.description}; {size}"
                )
                for pname, param in kind.parameters.items():
                    out.append(f"      --param {pname}=...: {param.description} (default {param.default!r})")
            for impl in sorted(reg.implementations_of(kid), key=lambda i: (i.family, i.name)):
                if not matches(impl.name, args.implementations):
                    continue
                why = features.unavailable(impl.requires)
                state = "available" if not why else f"unavailable: {why}"
                if impl.expected_to_fail:
                    state += f"; kept wrong on purpose: {impl.expected_to_fail}"
                owner = reg.owners.get(impl.key)
                if owner in reg.local and reg.owners.get(kid) != owner:
                    state += f"; from local plugin {owner}"
                out.append(f"    {impl.name:<24} {impl.family:<16} {state}")
    for failure in reg.failures:
        out.append(f"plugin failed: {failure}")
    if reg.disabled:
        out.append(f"disabled plugins: {', '.join(reg.disabled)}")
    _say(sys.stdout, "\n".join(out) + "\n")
    return EXIT_FAILED if reg.failures else EXIT_OK  # what loaded is listed; a plugin that did not is an error


def cmd_run(args, reg) -> int:
    from swarbench import results
    from swarbench.render import render
    from swarbench.render.live import LiveDisplay

    request = api.request_of(options.run_values(args))
    on_fleet = bool(args.cluster or args.machines or args.machine_names)
    if args.quiet:
        listener = None
    elif on_fleet:
        from swarbench import fleet

        listener = fleet.machine_listener_factory(args.processes)
    else:
        listener = LiveDisplay(args.processes)
    measured = api.measure(
        request, reg, listener, command=shlex.join(["swarbench", *args.argv]), fleet_args=args if on_fleet else None
    )
    outcome = measured.outcome
    _say(
        sys.stdout,
        render(args.format, measured.view) + f"saved {outcome.run_dir}/\n"
        f"(results.csv, report.html, report.md, benchmark.json); render again with "
        f"`swarbench report {outcome.run_id}`\n",
    )
    if outcome.interrupted:
        if measured.late_signals:
            _complain(
                f"interrupted ({', '.join(measured.late_signals)}) while the reports were written; every "
                f"report was written, in {outcome.run_dir}"
            )
        return EXIT_INTERRUPTED
    failed = results.failed_rows(outcome.frame)
    if len(failed):
        from swarbench.spec_guard import SPEC_ROW

        _say(sys.stderr, f"swarbench: FAIL: {failure_line(failed, SPEC_ROW, outcome.problems)}\n")
        return EXIT_FAILED
    if outcome.problems or outcome.frame.empty:
        _say(sys.stderr, f"swarbench: error: {(outcome.problems or ['nothing was measured'])[0]}\n")
        return EXIT_FAILED
    return EXIT_OK


def failure_line(failed, spec_row: str, problems: Sequence[str]) -> str:
    """The implementations that failed, then the kernels whose spec is wrong (with what is wrong, where there is
    one), then how many other problems the report lists."""
    impls = [f"{r.kernel}/{r.implementation}" for r in failed.itertuples() if r.implementation != spec_row]
    specs = {r.kernel: r.reason for r in failed.itertuples() if r.implementation == spec_row}
    parts = [", ".join(dict.fromkeys(impls))] if impls else []
    if len(specs) == 1:
        parts += list(specs.values())
    elif specs:
        parts.append(f"the specs of kernels {', '.join(sorted(specs))} are wrong (see the report)")
    if problems:
        parts.append(f"{len(problems)} more problem{'s' if len(problems) > 1 else ''} in the report: {problems[0]}")
    return "; ".join(parts)


def _say(stream, text: str) -> None:
    """Write a command's output; a reader that stopped reading (`| head`) changes nothing, since the results are
    saved and the exit code still says how the run went. Output that cannot be written (a full disk, /dev/full)
    is one line (OutputError). Either way the stream is pointed at os.devnull so that Python's own flush at exit
    does not fail on it again."""
    try:
        stream.write(printable(text))
        stream.flush()
    except OSError as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        if not isinstance(exc, BrokenPipeError):
            name = getattr(stream, "name", "the output")
            raise OutputError(
                f"cannot write {'standard output' if name == '<stdout>' else name}: {exc.strerror or exc}"
            ) from None


def cmd_report(args, reg) -> int:
    text = api.report(*args.runs, format=args.format, reports=args.reports, registry=reg, against=args.against)
    _write_output(text, args.output)
    return EXIT_OK


def _write_output(text: str, output: Optional[Path]) -> None:
    """A command's output to stdout, or to the file --output names (and a line saying so)."""
    if output is None:
        _say(sys.stdout, text)
        return
    from swarbench import files

    try:
        files.write_atomic(output, text)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
    _say(sys.stdout, f"wrote {output}\n")


def cmd_history(args, reg) -> int:
    from swarbench import history

    page = history.write(args.reports, args.output, args.follow)
    _say(sys.stdout, f"wrote {page.path} ({page.summary})\n")
    return EXIT_OK


def cmd_compare(args, reg) -> int:
    from swarbench import run_comparison
    from swarbench.render import comparison

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    frame = api.compare(*args.runs, reports=args.reports, relative=args.relative, follow=args.follow)
    geomeans = run_comparison.geomean_change(frame)
    threshold = args.fail_on_regression
    verdict = run_comparison.gate(frame, threshold) if threshold is not None else None
    gated = verdict.regressions if verdict else None
    if args.format == "csv":
        text = frame.to_csv(index=False)
    elif args.format == "md":
        text = comparison.render_md(frame, geomeans, gated)
    elif args.format == "html":
        text = comparison.render_html(frame, geomeans, gated)
    else:
        text = comparison.render_text(frame, geomeans, verdict)
    _write_output(text, args.output)
    if verdict is None:
        return EXIT_OK
    if verdict.failed:
        _complain(f"{len(verdict.regressions)} regression(s) beyond {threshold:g}%")
        return EXIT_FAILED
    if not verdict.resolved:
        _complain(comparison.gate_summary(verdict))
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
        raise PluginCommandError(
            f"command {args.command!r} of plugin {plugin!r} failed: {registry_mod.one_line(exc)}"
        ) from None


class PluginCommandError(Exception):
    """A plugin's sub-command raised: its own fault, not the user's input (exit 1)."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _standard_streams()
    try:
        with stop_signals_interrupt():  # `kill` or a closed terminal ends any command as Ctrl-C does
            return _main(argv)
    except (UsageError, InvalidInput) as exc:
        _complain(f"error: {exc}")
        return EXIT_USAGE
    except (OutputError, PluginCommandError, SpecError) as exc:
        _complain(f"error: {exc}")
        return EXIT_FAILED
    except BrokenPipeError:  # a reader that stopped reading a plugin command's output
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # a file of the run that could not be written: a full disk, a folder taken away
        what = (exc.strerror or type(exc).__name__).lower()
        _complain(f"error: {what}: {exc.filename}" if exc.filename else f"error: {what}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        _complain("interrupted")
        return EXIT_INTERRUPTED


def _main(argv: list[str]) -> int:
    settings = config.read()
    disable = _disabled_from_argv(argv) or settings.disabled_plugins  # given on the command line: those only
    configured = local.sources(settings.values.get("plugins", []))
    # parsing needs the plugins' sub-commands only where argv does not name one of swarbench's own; the suites'
    # kernels load after
    own = _own_command(argv)
    commands = (
        registry_mod.Registry()
        if own
        else registry_mod.load(disable=disable, local=configured, stages=registry_mod.COMMANDS_ONLY)
    )
    _say_slow_imports(commands)
    parser = build_parser(commands, settings, argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help: its text still has to reach a reader
        _say(sys.stdout, "")
        return int(exc.code or 0)
    args.argv = argv
    options.refused(vars(args))
    if args.command is None:
        parser.print_help()
        _say(sys.stdout, "")
        return EXIT_USAGE
    args.disable_plugins = disable
    given = options.value_of(args, options.OPTIONS["plugins"]) if hasattr(args, "plugins") else None
    reg = registry_mod.load(disable=disable, local=local.sources(given) if given is not None else configured)
    if own:
        _say_slow_imports(reg)
    for failure in reg.failures:
        _complain(f"warning: {failure}; skipped")
    if args.command == "list":
        code = cmd_list(args, reg)
    elif args.command == "run":
        code = cmd_run(args, reg)
    elif args.command == "report":
        code = cmd_report(args, reg)
    elif args.command == "compare":
        code = cmd_compare(args, reg)
    elif args.command == "history":
        code = cmd_history(args, reg)
    elif args.command == "new-plugin":
        code = scaffold.run(args, reg)
    elif args.command == "noise":
        code = noise.run(args, reg)
    else:
        code = cmd_plugin(args, reg)
    _say(sys.stdout, "")  # what a command printed is written out here, where a failure can still be said
    return code


def _own_command(argv: list[str]) -> Optional[str]:
    """The command line's own sub-command argv names (its first word that is not an option), or None: then the
    plugins' commands are not needed to parse it, and `swarbench run --help` waits on no plugin's import."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first is not None and first in builtin_commands() else None


def _say_slow_imports(reg: registry_mod.Registry) -> None:
    """A plugin whose import took seconds is named, with how to leave it out: every command waits on it."""
    for name, seconds in sorted(reg.import_s.items()):
        if seconds >= registry_mod.SLOW_IMPORT_S:
            _complain(
                f"note: plugin {name!r} took {seconds:.1f} s to import (every command waits on it; "
                f"--disable-plugin {name} leaves it out)"
            )


def _complain(text: str) -> None:
    """One line on stderr, whatever the text holds (a plugin's message may hold line breaks or control
    characters); nothing where stderr cannot be written."""
    try:
        print(printable("swarbench: " + " ".join(text.split())), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _standard_streams() -> None:
    """A closed standard stream (`swarbench report latest >&-`) reads as /dev/null: Python left it None, and a
    file opened later would otherwise land on its descriptor and take a child's output."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        stream = open(fd, "r" if fd == 0 else "w", closefd=False)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


if __name__ == "__main__":
    sys.exit(main())
