"""Benchmark workers: every case as pytest-benchmark benchmarks, one pytest item per pass.

plugin.py is what pytest loads (the options only); session_hooks.py and session.py run a benchmark session,
with a module per step beside them (cases, workload_cache, checking, rounds, timing, canary, records,
terminal). bench_kernels.py is the test module pytest collects. docs/design.md draws the whole.
"""
