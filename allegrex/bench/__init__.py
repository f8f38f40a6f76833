"""Benchmarks of PSP workloads on the simulated PSP (`allegrex bench`).

    from allegrex.bench.llama import bench_llama, format_report
    report = bench_llama(shape="stories15M", kernels=("scalar", "vfpu"), tokens=64)
    print(format_report(report))
"""
