"""Same-run table ours / Enzyme / JAX per derivative cell, from the benchmark's JSON.

    python3 peers/enzyme/compare.py q.json [--min]

Times are each cell's median sample (`--min`: its minimum sample).

`ours` is our fastest single-threaded tool for the cell (a `nilang*` tool other than
`nilang-tN` with N > 1; in the schedules suite, the fastest schedule of the same step: every
tool but `rust`, the peers and the `implicit-*` stepper); `enzyme` and `jax` are the one-thread peers; `enzyme G/O` is Enzyme's
own derivative time (B: backward pass) over its own objective time (how Enzyme-friendly the C++ is).
"""

import json
import sys


PEERS = ("rust", "jax", "jax-mt", "enzyme")


def single_threaded_ours(tool, suite=None):
    if suite == "schedules":
        return tool not in PEERS and not tool.startswith("implicit")
    if not tool.startswith("nilang"):
        return False
    return not (tool.startswith("nilang-t") and tool != "nilang-t1")


def main(path, stat="median_s"):
    cells = [dict(c, median_s=c.get(stat)) for c in json.load(open(path))]
    cells = [c for c in cells if c.get("median_s")]
    by = {}
    for c in cells:
        by.setdefault((c["suite"], c["case"]), []).append(c)
    print("| suite | case | cell | ours (tool) | enzyme | jax | **ours / enzyme** | ours / jax | enzyme G/O |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (suite, case), cs in by.items():
        def t(tool, m):
            return next((c["median_s"] for c in cs if c["tool"] == tool and c["measure"] == m), None)

        for m in ("G", "J", "H", "B"):
            ours = [c for c in cs if c["measure"] == m and single_threaded_ours(c["tool"], suite)]
            enz = t("enzyme", m)
            if not ours or enz is None:
                continue
            best = min(ours, key=lambda c: c["median_s"])
            jax, enz_o = t("jax", m), t("enzyme", "O")
            f = lambda x: f"{x:.3e}" if x is not None else "-"  # noqa: E731
            r = lambda a, b: f"{a / b:.2f}" if a and b else "-"  # noqa: E731
            print(
                f"| {suite} | {case} | {m} | {f(best['median_s'])} ({best['tool']}) | {f(enz)} | {f(jax)} "
                f"| **{r(best['median_s'], enz)}** | {r(best['median_s'], jax)} | {r(enz, enz_o)} |"
            )


if __name__ == "__main__":
    main(sys.argv[1], "min_s" if "--min" in sys.argv[2:] else "median_s")
