"""The benchmarks as pytest items: see plugin.py (the pytest plugin) and bench_kernels.py (the test)."""
