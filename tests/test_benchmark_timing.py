"""The benchmarks' interleaved timing (`benchmarks.common.interleaved`, `paired_ratio`) and the control-flow
page's table (`benchmarks.control_flow.format_rows`): what is sampled in which order, and which ratio is judged."""

from __future__ import annotations

import time

from benchmarks.common import Stats, interleaved, paired_interval, paired_ratio
from benchmarks.control_flow import format_rows


def test_interleaved_calls_each_callable_once_per_round_in_a_rotating_order():
    calls: list[str] = []
    fns = {name: (lambda name=name: calls.append(name)) for name in ("a", "b", "c")}
    stats = interleaved(fns, rounds=5, collect_every=2)
    assert calls[:9] == ["a"] * 3 + ["b"] * 3 + ["c"] * 3  # warm-up: three calls each
    assert calls[9:] == ["a", "b", "c", "b", "c", "a", "c", "a", "b", "a", "b", "c", "b", "c", "a"]
    assert set(stats) == {"a", "b", "c"}
    assert all(len(s.samples) == 5 and s.number == 1 and min(s.samples) >= 0 for s in stats.values())


def test_interleaved_times_each_call_alone():
    stats = interleaved({"slow": lambda: time.sleep(0.002), "fast": lambda: None}, rounds=3)
    assert stats["slow"].min >= 0.002 > stats["fast"].max
    assert paired_ratio(stats["slow"], stats["fast"]) > 1


def test_paired_ratio_is_the_median_of_the_rounds_ratios():
    a, b = Stats([1.0, 2.0, 9.0, 4.0]), Stats([1.0, 1.0, 1.0, 4.0])  # rounds' ratios 1, 2, 9, 1
    assert paired_ratio(a, b) == 1.5
    assert paired_ratio(b, a) == 0.75  # (1, 0.5, 1/9, 1)


def test_paired_interval_brackets_the_paired_ratio_from_the_rounds_ratios():
    b = Stats([1.0] * 101)
    assert paired_interval(Stats([0.5] * 101), b) == (0.5, 0.5)  # (every round's ratio 0.5)
    ratios = [0.8 + 0.004 * i for i in range(101)]  # (0.8 to 1.2, median 1.0)
    a = Stats(ratios[::-1])
    low, high = paired_interval(a, b)
    assert 0.8 < low < paired_ratio(a, b) == 1.0 < high < 1.2
    assert paired_interval(a, b) == (low, high)  # (a fixed seed: the same interval every time)
    assert paired_interval(a, b, level=0.5)[0] > low


def test_the_table_judges_the_named_ratio():
    steady = ("steady", Stats([1.3, 1.0, 2.0]), Stats([1.0, 1.0, 1.0]), 1.2, "paired")  # paired 1.3, minimums 1.0
    first = ("first", Stats([1.3, 1.0, 2.0]), Stats([1.0, 1.0, 1.0]), 1.2, "min")
    lines = format_rows([steady, first]).splitlines()
    assert lines[2].startswith("| steady |") and "**1.30x**" in lines[2] and "(missed)" in lines[2]
    assert lines[3].startswith("| first |") and "**1.00x**" in lines[3] and "(met)" in lines[3]
