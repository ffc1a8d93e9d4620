#!/usr/bin/env python3
"""bench/plot.py: the plots of doc/performance.md, from the measurements kept
under bench/results/.

    python3 bench/plot.py [RESULTS_DIR [OUT_DIR]]     # defaults: bench/results doc/img

Run it from the repository root (or give both directories). Needs Python 3 and
matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib, then run it with
the system's /usr/bin/python3 if another python3 comes first in PATH; or
pip install matplotlib). It writes one SVG per plot into OUT_DIR, text kept as
text, no timestamps (the same inputs give the same files):

    spmv-bandwidth.svg   spmv-h100.csv             GB/s per SpMV format and matrix, copy roof
    amgx-h100.svg        amgx-h100.csv             AMG-PCG against AmgX's shipped configs
    peers-cpu.svg        peers-cpu.csv             iterations against BoomerAMG and GAMG
    smoothers.svg        amg-smoothers-h100.jsonl  time to solution per smoother, aniso27:100
    aniso27-table5.svg     amg-smoothers-h100.jsonl  aniso27 10^3..100^3 beside the published
                         + published-c2050.csv     Table 5 (C2050)
    scaling-h100x4.svg   scaling-h100x4.jsonl      strong and weak scaling on 1-4 H100s
    scaling-h200x4.svg   scaling-h200x4.jsonl      setup and solve on 1, 2 and 4 H200s
    scaling-h200x2.svg   scaling-h200x2.jsonl      setup and solve on 1 and 2 H200s (current tree)
    setup.svg            setup-h100.jsonl          setup phases on one GPU, setup on 1-4 GPUs
                         + scaling-h100x4.jsonl
    cfd-classes.svg      peers-true-residual-cpu.jsonl  the default AMG on the CFD classes of
                         + peers-auto-cpu.jsonl         issue 31 against aggregation, BoomerAMG, GAMG

Inputs: JSON lines as the bench programs print them (bench/amg, bench/scaling;
one object a line), and CSV tables (lines starting with '#' are comments)
for figures that were recorded only as tables. To add a measurement, append
the bench's JSON lines (or CSV rows) and run this script again.
"""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({
    "svg.fonttype": "none",      # text as text
    "svg.hashsalt": "nagare",    # stable element ids
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
})
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def num(s):
    return float(s) if s not in (None, "") else None


def save(fig, out, name):
    path = os.path.join(out, name)
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    with open(path) as f:  # matplotlib leaves trailing blanks in path data
        text = "".join(l.rstrip() + "\n" for l in f)
    with open(path, "w") as f:
        f.write(text)
    print(path)


def size_of(problem):
    """aniso27:100 -> 100"""
    return int(problem.split(":")[1])


# ---------------------------------------------------------------- SpMV
def plot_spmv(res, out):
    rows = read_csv(os.path.join(res, "spmv-h100.csv"))
    roof = next(float(r["gbs"]) for r in rows if r["matrix"] == "copy")
    mats = ["fem27:256", "fem27:128", "fem27:64", "mps:86"]
    fmts = ["csr", "dia", "dia_half", "ell", "ellr", "sell", "sell:32:1"]
    gbs = {(r["matrix"], r["format"]): num(r["gbs"]) for r in rows}
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    w = 0.8 / len(fmts)
    for j, f in enumerate(fmts):
        xs, ys = [], []
        for i, m in enumerate(mats):
            v = gbs.get((m, f))
            if v:
                xs.append(i - 0.4 + (j + 0.5) * w)
                ys.append(v)
        ax.bar(xs, ys, w, label=f, color=COLORS[j])
    ax.axhline(roof, color="k", ls="--", lw=1)
    ax.text(len(mats) - 0.5, roof + 40, "device copy %.0f GB/s" % roof, ha="right", va="bottom")
    ax.set_xticks(range(len(mats)), mats)
    ax.set_ylabel("GB/s (each byte counted once)")
    ax.set_ylim(0, roof * 1.15)
    ax.set_title("SpMV on one H100: bandwidth per format (missing bar: format refused)")
    ax.legend(ncol=4, fontsize=8, loc="lower right", framealpha=0.9)
    save(fig, out, "spmv-bandwidth.svg")


# ---------------------------------------------------------------- AmgX
def plot_amgx(res, out):
    rows = read_csv(os.path.join(res, "amgx-h100.csv"))
    mats = []
    for r in rows:
        if r["matrix"] not in mats:
            mats.append(r["matrix"])
    solvers = ["nagare", "PCG_AGGREGATION_JACOBI", "FGMRES_AGGREGATION_JACOBI", "agg_cheb4"]
    best = {}  # (matrix, solver) -> (setup, solve) of the run with the smaller total
    for r in rows:
        k = (r["matrix"], r["solver"])
        s, v = float(r["setup_s"]), float(r["solve_s"])
        if k not in best or s + v < sum(best[k]):
            best[k] = (s, v)
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    w = 0.8 / len(solvers)
    for j, sv in enumerate(solvers):
        xs = [i - 0.4 + (j + 0.5) * w for i in range(len(mats))]
        su = [best[(m, sv)][0] for m in mats]
        so = [best[(m, sv)][1] for m in mats]
        ax.bar(xs, su, w, color=COLORS[j], alpha=0.45, edgecolor=COLORS[j])
        ax.bar(xs, so, w, bottom=su, color=COLORS[j], label=sv if sv != "nagare" else "nagare AMG-PCG")
    ax.set_xticks(range(len(mats)), mats)
    ax.set_ylabel("seconds (light: setup, dark: solve)")
    ax.set_yscale("log")
    ax.set_ylim(0.01, 8)
    ax.set_title("One H100, to 1e-8: nagare against AmgX 2.5.0 (better of two runs each)")
    ax.legend(fontsize=8, loc="upper left", ncol=2)
    save(fig, out, "amgx-h100.svg")


# ---------------------------------------------------------------- peers on the CPU
def plot_peers(res, out):
    rows = [r for r in read_csv(os.path.join(res, "peers-cpu.csv")) if r["date"] == "2026-11-25"]
    probs, solvers = [], []
    for r in rows:
        if r["problem"] not in probs:
            probs.append(r["problem"])
        if r["solver"] not in solvers:
            solvers.append(r["solver"])
    its = {(r["problem"], r["solver"]): int(r["iterations"]) for r in rows}
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    w = 0.8 / len(solvers)
    for j, sv in enumerate(solvers):
        xs = [i - 0.4 + (j + 0.5) * w for i in range(len(probs))]
        ax.bar(xs, [its[(p, sv)] for p in probs], w, label=sv, color=COLORS[j])
    ax.set_xticks(range(len(probs)), probs)
    ax.set_ylabel("iterations to 1e-8")
    ax.set_ylim(0, 125)
    ax.set_title("CPU, one rank: nagare AMG against BoomerAMG and GAMG")
    ax.legend(fontsize=8, ncol=3)
    save(fig, out, "peers-cpu.svg")


# ---------------------------------------------------------------- smoothers
SMOOTHER_LABEL = {
    "jacobi": "jacobi (default)",
    "chebyshev": "chebyshev",
    "mcgs -amg_smoother mcgs -amg_mcgs_coarse mmcgs -amg_sweeps 3,2,1 -amg_mcgs_values single":
        "mcgs, coarse mmcgs, 3,2,1, FP32",
    "mcgs -amg_smoother mcgs": "mcgs (2+2)",
    "mmcgs -amg_smoother mmcgs": "mmcgs (2+2)",
}


def smoother_key(d):
    return d["smoother"] if d["smoother"] in ("jacobi", "chebyshev") else d["smoother"] + " " + d["opts"]


def plot_smoothers(res, out):
    rows = read_jsonl(os.path.join(res, "amg-smoothers-h100.jsonl"))[:21]  # the interleaved runs
    keys = ["jacobi", "chebyshev",
            "mcgs -amg_smoother mcgs -amg_mcgs_coarse mmcgs -amg_sweeps 3,2,1 -amg_mcgs_values single"]
    fig, ax = plt.subplots(figsize=(6.5, 2.8))
    for j, k in enumerate(keys):
        ds = [d for d in rows if smoother_key(d) == k]
        tot = [d["total_s"] * 1e3 for d in ds]
        setup = sum(d["setup_s"] for d in ds) / len(ds) * 1e3
        mean = sum(tot) / len(tot)
        ax.barh(j, setup, 0.6, color=COLORS[j], alpha=0.45)
        ax.barh(j, mean - setup, 0.6, left=setup, color=COLORS[j])
        ax.plot(tot, [j] * len(tot), "k|", ms=12)
        ax.text(max(tot) + 2.5, j, "%d its, mean %.1f ms" % (ds[0]["iterations"], mean), va="center")
    ax.set_yticks(range(len(keys)), [SMOOTHER_LABEL[k] for k in keys])
    ax.invert_yaxis()
    ax.set_xlim(0, 105)
    ax.set_xlabel("ms, setup + solve (light: mean setup; ticks: the 7 runs)")
    ax.set_title("aniso27:100, AMG-PBiCGSTAB to 1e-7, one H100")
    save(fig, out, "smoothers.svg")


def plot_seeds(res, out):
    rows = read_jsonl(os.path.join(res, "amg-smoothers-h100.jsonl"))[21:71]  # the ten sizes
    pub = [r for r in read_csv(os.path.join(res, "published-c2050.csv")) if r["gpus"] == "1"]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.2))
    ours = ["jacobi", "mcgs -amg_smoother mcgs -amg_mcgs_coarse mmcgs -amg_sweeps 3,2,1 -amg_mcgs_values single"]
    for j, k in enumerate(ours):
        ds = sorted((d for d in rows if smoother_key(d) == k), key=lambda d: size_of(d["problem"]))
        n = [size_of(d["problem"]) for d in ds]
        lab = "nagare, H100: " + SMOOTHER_LABEL[k]
        a1.plot(n, [d["iterations"] for d in ds], "o-", color=COLORS[j], label=lab)
        a2.plot(n, [d["total_s"] for d in ds], "o-", color=COLORS[j], label=lab)
    for j, sm in enumerate(["jacobi", "mcgs"]):
        ps = sorted((r for r in pub if r["smoother"] == sm), key=lambda r: size_of(r["problem"]))
        n = [size_of(r["problem"]) for r in ps]
        lab = "published, C2050: " + sm
        a1.plot(n, [int(r["iterations"]) for r in ps], "s--", color=COLORS[j], mfc="none", label=lab)
        a2.plot(n, [float(r["seconds"]) for r in ps], "s--", color=COLORS[j], mfc="none", label=lab)
    a1.set_xlabel("grid points per side (N^3 rows)")
    a1.set_ylabel("iterations to 1e-7")
    a1.set_ylim(0, 50)
    a2.set_xlabel("grid points per side (N^3 rows)")
    a2.set_ylabel("seconds, setup + solve")
    a2.set_yscale("log")
    a1.legend(fontsize=7)
    fig.suptitle("aniso27, AMG-BiCGSTAB: Takahashi, Fujii, Tanaka's Table 5 beside ours", y=1.02)
    save(fig, out, "aniso27-table5.svg")


# ---------------------------------------------------------------- multi-GPU
# bench/results/scaling-h100x4.jsonl's calls drawn: the AMG solve and the
# setup of the current tree, and the coupled setup before it
NEW_CALL = "2026-11-28 s6 #4"
WEAK256_CALL = "2026-11-28 s6 #4"  # 256^3 a GPU, the current setup (1 and 4 GPUs)
OLD_CALL = "2026-11-27 #"


def plot_scaling(res, out):
    rows = read_jsonl(os.path.join(res, "scaling-h100x4.jsonl"))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.2))
    # strong: Jacobi-CG ms an iteration (default transport; the 1-GPU dia_half run is the reference)
    jac = [d for d in rows if d["mode"] == "strong" and d["precond"] == "jacobi" and d["transport"] in ("auto", "ipc")]
    base = next(d for d in jac if d["ranks"] == 1 and d["format"] == "dia_half")
    best = {}
    for d in jac:
        if d["format"] == "dia_half":
            best[d["ranks"]] = min(best.get(d["ranks"], 1e9), d["ms_per_it"])
    p = sorted(best)
    a1.plot(p, [base["ms_per_it"] / best[k] for k in p], "o-", label="Jacobi-CG lap27:256 (ms / it)")
    for j, m in enumerate(["lap27:256", "fem27:256"]):
        ds = sorted((d for d in rows if d["mode"] == "strong" and d["precond"] == "amg" and d["matrix"] == m
                     and d["transport"] == "auto" and d.get("amg_telescope_rows", 0) == 0
                     and d.get("call", "").startswith(NEW_CALL)),
                    key=lambda d: d["ranks"])
        b = ds[0]["solve_s"]
        a1.plot([d["ranks"] for d in ds], [b / d["solve_s"] for d in ds], "o-", color=COLORS[j + 1],
                label="AMG-CG %s (solve)" % m)
    a1.plot([1, 4], [1, 4], "k:", lw=1, label="ideal")
    a1.set_xticks([1, 2, 3, 4])
    a1.set_xlabel("GPUs")
    a1.set_ylabel("speed-up over 1 GPU")
    a1.set_title("strong scaling, 16.8M rows")
    a1.legend(fontsize=7)
    for j, share in enumerate(["256x256"]):
        call = None
        if share == "256x256":
            call = WEAK256_CALL
        ds = sorted((d for d in rows if d["mode"] == "weak" and d["matrix"].startswith("lap27:" + share)
                     and d.get("amg_telescope_rows", 0) == 0
                     and (d.get("call", "").startswith(call) if call
                          else not d.get("call", "").startswith(("2026-11-27 s4", "2026-11-28")))),
                    key=lambda d: d["ranks"])
        b = ds[0]
        a2.plot([d["ranks"] for d in ds], [b["solve_s"] / d["solve_s"] for d in ds], "o-",
                color=COLORS[j + 1], label="%s^3 a GPU, solve" % share.split("x")[0])
        a2.plot([d["ranks"] for d in ds], [b["ms_per_it"] / d["ms_per_it"] for d in ds], "s--",
                color=COLORS[j + 1], mfc="none", label="%s^3 a GPU, per iteration" % share.split("x")[0])
    a2.set_xticks([1, 2, 4])
    a2.set_ylim(0, 1.15)
    a2.set_xlabel("GPUs")
    a2.set_ylabel("efficiency (1 GPU time / P GPU time)")
    a2.set_title("weak scaling, lap27, AMG-CG")
    a2.legend(fontsize=7, loc="lower left")
    fig.suptitle("H100 x4 with NVLink, one rank a GPU", y=1.03)
    save(fig, out, "scaling-h100x4.svg")


def plot_setup(res, out):
    amg = read_jsonl(os.path.join(res, "setup-h100.jsonl"))
    sc = read_jsonl(os.path.join(res, "scaling-h100x4.jsonl"))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.0), gridspec_kw={"width_ratios": [1.1, 1]})
    phases = ["aggregate", "rho", "prolong", "galerkin", "finish"]
    # the current tree's first run of each problem (the file also keeps the tree before it)
    ds = []
    for m in ("lap27:256", "fem27:256"):
        runs = [d for d in amg if d["problem"] == m and d["tree"] == "2644979"]
        if runs:
            ds.append(runs[0])
    labels = [d["problem"] for d in ds]
    for i, d in enumerate(ds):
        left = 0.0
        for j, ph in enumerate(phases):
            v = d["setup_phases_s"][ph]
            a1.barh(i, v, 0.6, left=left, color=COLORS[j], label=ph if i == 0 else None)
            left += v
        a1.text(d["setup_s"] + 0.005, i, "%.3f s" % d["setup_s"], va="center")
    a1.set_yticks(range(len(ds)), labels)
    a1.set_xlim(0, 0.42)
    a1.set_xlabel("seconds")
    a1.set_title("one H100: setup phases (bench/amg)")
    a1.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    for j, m in enumerate(["lap27:256", "fem27:256"]):
        for new in (False, True): # the coupled setup (an earlier call) and the uncoupled finest level
            xs = sorted((d for d in sc if d["mode"] == "strong" and d["precond"] == "amg" and d["matrix"] == m
                         and d["transport"] == "auto" and "options" not in d and d.get("amg_telescope_rows", 0) == 0
                         and d.get("call", "").startswith(NEW_CALL if new else OLD_CALL)), key=lambda d: d["ranks"])
            a2.plot([d["ranks"] for d in xs], [d["setup_s"] for d in xs], "o-" if new else "s--", color=COLORS[j],
                    mfc=None if new else "none", label="%s, %s" % (m, "uncoupled finest level" if new else "coupled (before)"))
    a2.set_xticks([1, 2, 4])
    a2.set_xlabel("GPUs (one rank each)")
    a2.set_ylabel("setup seconds")
    a2.set_ylim(0, 3.0)
    a2.set_title("setup on 1-4 H100s (bench/scaling)")
    a2.legend(fontsize=7)
    save(fig, out, "setup.svg")


SCALING4_CALL, SCALING4_TREE = "2026-11-29 s14 #1", "7540e26"  # the last call with the weak runs too


def gpu_time_bars(cases, gpus, runs, w, figsize, title, name, out):
    """Setup again + solve stacked, a bar per GPU count beside each case;
    runs(k, p, case) gives the case's runs on p GPUs (a bar: their mean)."""
    fig, ax = plt.subplots(figsize=figsize)
    for k, p in enumerate(gpus):
        for c, case in enumerate(cases):
            ds = runs(k, p, case)
            if not ds:
                continue
            su = sum(d["setup_again_s"] for d in ds) / len(ds)
            so = sum(d["solve_s"] for d in ds) / len(ds)
            x = c + (k - (len(gpus) - 1) / 2) * w
            ax.bar(x, su, w, color=COLORS[k], alpha=0.55, label=f"{p} GPU{'s' if p > 1 else ''}: setup" if c == 0 else None)
            ax.bar(x, so, w, bottom=su, color=COLORS[k], label=f"{p} GPU{'s' if p > 1 else ''}: solve" if c == 0 else None)
            ax.text(x, su + so, f"{su + so:.3f}", ha="center", va="bottom", fontsize=6)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c[0] for c in cases])
    ax.set_ylabel("seconds (setup again + solve)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6.5, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    save(fig, out, name)


def plot_scaling4(res, out):
    """1, 2 and 4 H200s: time to solution (setup again + solve), one call."""
    rows = [d for d in read_jsonl(os.path.join(res, "scaling-h200x4.jsonl"))
            if d.get("call") == SCALING4_CALL and d["tree"] == SCALING4_TREE and "amg_smoother" not in d]
    # (label, matrix on 1 / 2 / 4 GPUs, solver)
    cases = [("lap27:256", ("lap27:256",) * 3, "cg"),
             ("fem27:256", ("fem27:256",) * 3, "cg"),
             ("lap27, 256^3 a GPU\n(weak)", ("lap27:256", "lap27:256x256x512", "lap27:256x256x1024"), "cg")]
    runs = lambda k, p, case: [d for d in rows if d["ranks"] == p and d["matrix"] == case[1][k] and d["solver"] == case[2]][:1]
    gpu_time_bars(cases, (1, 2, 4), runs, 0.26, (7, 3.4),
                  f"AMG-CG to 1e-8 on 1, 2 and 4 H200s, default options (tree {SCALING4_TREE}, one call)",
                  "scaling-h200x4.svg", out)


SCALING2_CALLS, SCALING2_TREE = {"strong": "2026-11-29 s15 #8", "weak": "2026-11-29 s15 #7"}, "a72a4bc"


def plot_scaling2(res, out):
    """1 and 2 H200s: time to solution (setup again + solve), each bar the
    mean of the call's runs (strong: two alternating)."""
    rows = [d for d in read_jsonl(os.path.join(res, "scaling-h200x2.jsonl"))
            if d.get("call") == SCALING2_CALLS.get(d.get("mode")) and d.get("tree") == SCALING2_TREE
            and "amg_smoother" not in d]
    cases = [("lap27:256", ("lap27:256", "lap27:256"), "strong"),
             ("fem27:256", ("fem27:256", "fem27:256"), "strong"),
             ("lap27, 256^3 a GPU\n(weak)", ("lap27:256x256x256", "lap27:256x256x512"), "weak")]
    runs = lambda k, p, case: [d for d in rows if d["ranks"] == p and d["matrix"] == case[1][k] and d.get("mode") == case[2]]
    gpu_time_bars(cases, (1, 2), runs, 0.36, (6, 3.4),
                  f"AMG-CG to 1e-8 on 1 and 2 H200s, default options (tree {SCALING2_TREE})", "scaling-h200x2.svg", out)


# ------------------------------------------------------------ CFD classes
CFD_ORDER = ["stretch7_64", "jump2q1_70", "jump2q1_300", "bubbles7_64", "spheres7_64", "jump3q1_40",
             "bubbles5_512", "layers7_64", "p1tet_48", "het5_512", "rotaniso_512", "het7_64", "lap7_64"]


def plot_cfd(res, out):
    """Iterations to 1e-8 (log scale): nagare's default (counted where the
    peers stop: its recurrence met the tolerance), aggregation alone (the
    default before; capped at 1000), BoomerAMG-PCG, GAMG-CG; the 2x
    BoomerAMG bar of issue 31 as a tick."""
    now = read_jsonl(os.path.join(res, "peers-true-residual-cpu.jsonl"))
    old = read_jsonl(os.path.join(res, "peers-auto-cpu.jsonl"))
    agg = {d["matrix"]: d["iterations"] for d in old
           if d["solver"] == "nagare-amg-pcg" and "aggregation" in (d.get("options") or "")}
    its = {(d["matrix"], d["solver"]): d for d in now}
    probs = [p for p in CFD_ORDER if (p, "nagare-amg-pcg") in its]
    series = [("nagare default (auto)", lambda p: its[(p, "nagare-amg-pcg")]["recurrence_met_at"]),
              ("nagare aggregation (before)", lambda p: agg.get(p)),
              ("BoomerAMG-PCG", lambda p: its[(p, "boomeramg-pcg")]["iterations"]),
              ("GAMG-CG", lambda p: its[(p, "gamg-cg")]["iterations"])]
    fig, ax = plt.subplots(figsize=(9.0, 3.4))
    w = 0.8 / len(series)
    for j, (label, get) in enumerate(series):
        xs = [i - 0.4 + (j + 0.5) * w for i in range(len(probs))]
        ax.bar(xs, [get(p) or 0 for p in probs], w, label=label, color=COLORS[j])
    for i, p in enumerate(probs):
        bar = 2 * its[(p, "boomeramg-pcg")]["iterations"]
        ax.plot([i - 0.45, i + 0.45], [bar, bar], color="black", linewidth=0.8,
                label="2 x BoomerAMG" if i == 0 else None)
    ax.set_yscale("log")
    ax.set_ylim(5, 2000)
    ax.set_xticks(range(len(probs)))
    ax.set_xticklabels([p.replace("_", ":") for p in probs], rotation=35, ha="right", fontsize=7)
    ax.set_ylabel("iterations to 1e-8 (log)")
    ax.set_title("CPU, one rank, default options: AMG-PCG on the CFD classes (2026-11-29)", fontsize=9)
    ax.legend(fontsize=6.5, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.32), frameon=False)
    save(fig, out, "cfd-classes.svg")


def main():
    res = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    out = sys.argv[2] if len(sys.argv) > 2 else "doc/img"
    os.makedirs(out, exist_ok=True)
    for f in (plot_spmv, plot_amgx, plot_peers, plot_smoothers, plot_seeds, plot_scaling, plot_scaling4, plot_scaling2, plot_setup,
              plot_cfd):
        f(res, out)


if __name__ == "__main__":
    main()
