"""The command line: ``swarbench list | run | report`` and the sub-commands plugins add.

Bad input of any kind ends in one line on stderr and exit code 2; a run with a wrong implementation exits 1;
an interrupted run saves what it measured and exits 130.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from harness import engine, features, registry as registry_mod, results
from harness.errors import UsageError
from harness.model import InvalidInput, matches
from harness.render import FORMATS, RunView, render

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print the whole usage block; one line is enough
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def positive_int(text: str) -> int:
    try:
        value = int(float(text)) if "e" in text.lower() else int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer") from None
    if value < 1 or ("e" in text.lower() and float(text) != value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
    return value


def reports_default() -> Path:
    return Path(os.environ.get("SWARBENCH_REPORTS", "reports"))


def add_selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel", "-k", action="append", default=[], metavar="PATTERN",
                   help="kernels whose id matches this shell pattern, e.g. 'cards.*' (repeatable; default all)")
    p.add_argument("--impl", "-i", action="append", default=[], metavar="PATTERN",
                   help="implementations whose name matches this pattern, e.g. 'c-*' (repeatable; default all)")


def build_parser(reg: registry_mod.Registry) -> Parser:
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
    p.add_argument("--size", "-n", type=positive_int, default=None, metavar="N",
                   help="operations per batch, e.g. 1048576 or 1e6 (default: each workload's own size)")
    p.add_argument("--seed", type=int, default=0, help="seed of the input generators (default 0)")
    p.add_argument("--max-time", type=positive_float, default=0.5, metavar="SECONDS",
                   help="timing budget per measurement (default 0.5)")
    p.add_argument("--min-rounds", type=positive_int, default=3, metavar="R",
                   help="at least this many timed batch calls per measurement (default 3)")
    p.add_argument("--reports", type=Path, default=reports_default(), metavar="DIR",
                   help="where runs are saved (default ./reports or $SWARBENCH_REPORTS)")
    p.add_argument("--format", choices=FORMATS, default="text", help="what to print (default text)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines")

    p = sub.add_parser("report", help="render a saved run again",
                       description="Render a saved run (a run id under REPORTS, a run folder, a results.csv, "
                                   "or 'latest') in any format.")
    p.add_argument("run", metavar="RUN", help="run id, run folder, results.csv path, or 'latest'")
    p.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format (default text)")
    p.add_argument("--output", "-o", type=Path, default=None, metavar="FILE", help="write here, not stdout")
    p.add_argument("--reports", type=Path, default=reports_default(), metavar="DIR",
                   help="where runs are saved (default ./reports or $SWARBENCH_REPORTS)")

    for name, command in sorted(reg.commands.items()):
        p = sub.add_parser(name, help=command.help, description=command.help)
        command.add_arguments(p)
    return parser


def cmd_list(args, reg) -> int:
    out = []
    for suite in sorted({k.suite for k in reg.kernels.values()}):
        out.append(f"{suite}  (plugin {reg.owners.get(next(k for k in reg.kernels if k.startswith(suite + '.')))})")
        for kid, kernel in sorted(reg.kernels.items()):
            if kernel.suite != suite or not matches(kid, args.kernel):
                continue
            out.append(f"  {kid}: {kernel.description} [one op = one {kernel.unit}]")
            for kind in kernel.workloads:
                size = "fixed size" if kind.fixed_size else f"default n={kind.default_size:,}"
                out.append(f"    workload {kind.name}{' (default)' if kind.default else ''}: {kind.description}; "
                           f"{size}")
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
    print("\n".join(out))
    return EXIT_OK


def _view(reg, frame, machine, extra_notes=()) -> RunView:
    sections, problems = engine.suite_sections(reg, frame)
    notes = [str(f) for f in reg.failures] + problems + list(extra_notes)
    return RunView(frame, machine, sections, notes)


def cmd_run(args, reg) -> int:
    request = engine.RunRequest(kernels=args.kernel, impls=args.impl, workloads=args.workload, size=args.size,
                                seed=args.seed, max_time=args.max_time, min_rounds=args.min_rounds,
                                reports_dir=args.reports, disable=args.disable_plugin, progress=not args.quiet)
    outcome = engine.run(request, reg)
    problem = engine.worker_problem(outcome)
    notes = [problem] if problem else []
    if outcome.interrupted:
        notes.append(f"interrupted: {len(outcome.frame)} measurement(s) kept")
    view = _view(reg, outcome.frame, outcome.machine, notes)
    for fmt, name in (("html", "report.html"), ("md", "report.md")):
        results.write_atomic(outcome.run_dir / name, render(fmt, view))
    sys.stdout.write(render(args.format, view))
    print(f"saved {outcome.run_dir}/ (results.csv, report.html, report.md, benchmark.json); "
          f"render again with `swarbench report {outcome.run_id}`")
    if outcome.interrupted:
        return EXIT_INTERRUPTED
    failed = engine.failed_rows(outcome.frame)
    if len(failed):
        names = ", ".join(f"{r.kernel}/{r.implementation}" for r in failed.itertuples())
        print(f"swarbench: FAIL: {names}", file=sys.stderr)
        return EXIT_FAILED
    if problem or outcome.frame.empty:
        print(f"swarbench: error: {problem or 'nothing was measured'}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def cmd_report(args, reg) -> int:
    path = results.resolve_run(args.run, args.reports)
    frame = results.load(path)
    text = render(args.format, _view(reg, frame, results.machine_of(path.parent)))
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        results.write_atomic(args.output, text)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"wrote {args.output}")
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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        reg = registry_mod.load(disable=_disabled_from_argv(argv))
        parser = build_parser(reg)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return EXIT_USAGE
        for failure in reg.failures:
            print(f"swarbench: warning: {failure}; skipped", file=sys.stderr)
        if args.command == "list":
            return cmd_list(args, reg)
        if args.command == "run":
            return cmd_run(args, reg)
        if args.command == "report":
            return cmd_report(args, reg)
        return int(reg.commands[args.command].run(args, reg) or 0)
    except (UsageError, InvalidInput) as exc:
        print(f"swarbench: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("swarbench: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
