"""The same games on a (local) Ray instance as on this machine's processes."""

from __future__ import annotations

import ray

from gotown.study.simulation import Configuration, run


def test_a_local_ray_run_equals_the_local_run() -> None:
    configurations = [
        Configuration(("random", "medium"), games=6),
        Configuration(("random", "random", "easy"), {"win_floors": 4}, games=6),
    ]
    local = run(configurations, seed=9, workers=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = run(configurations, seed=9, ray_address="local")
    finally:
        ray.shutdown()
    for name in ("games", "turns", "holdings", "plays"):
        assert getattr(on_ray, name).equals(getattr(local, name)), name
