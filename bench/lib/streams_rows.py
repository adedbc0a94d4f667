# The rows of ./weft bench streams for one client count: one per Weft node (when there are
# several) and one for all of them, from the histogram files of bench/lib/StreamLoad.java.
#   python3 streams_rows.py N NODE_COUNT WROTE WRITE_ERRORS FIRST_US LOAD HZ PG_CPU_S NODES K:PREFIX...
# NODES: "k open clients rss_kb peak_kb user0 sys0 user1 sys1;" per node (CPU in clock ticks);
# K:PREFIX: the load process whose histograms are PREFIX.hist, connected to node K.
import sys

n, node_count, wrote, werr, first_us, load, hz, pg_cpu, nodes = sys.argv[1:10]
hz = int(hz)
wrote = int(wrote)
files = {}
for g in sys.argv[10:]:
    k, path = g.split(":", 1)
    files.setdefault(k, []).append(path + ".hist")


def empty():
    return dict(hist={}, commit={}, received=0, last=0, cpu=0.0, sys=0.0, docs={})


def read(paths):
    r = empty()
    for f in paths:
        try:
            lines = open(f).read().splitlines()
        except OSError:
            continue
        for line in lines:
            if line.startswith("#"):
                kv = line[1:].split()
                d = dict(zip(kv[::2], kv[1::2]))
                r["received"] += int(d["received"])
                r["last"] = max(r["last"], int(d["last_us"]))
                r["sys"] += int(d["run_sys_ticks"]) / hz
                r["cpu"] += (int(d["run_user_ticks"]) + int(d["run_sys_ticks"])) / hz
            elif line.startswith("e "):
                i, count, low, high, commit_low = map(int, line[2:].split())
                d = r["docs"].setdefault(i, [0, low, high, commit_low])
                if d[0]:
                    d[1] = min(d[1], low); d[2] = max(d[2], high)
                    d[3] = commit_low if d[3] < 0 else min(d[3], commit_low) if commit_low >= 0 else d[3]
                d[0] += count
            elif line.startswith("c "):
                b, c = map(int, line[2:].split())
                r["commit"][b] = r["commit"].get(b, 0) + c
            else:
                b, c = map(int, line.split())
                r["hist"][b] = r["hist"].get(b, 0) + c
    return r


def add(into, r):
    for key in ("hist", "commit"):
        for b, c in r[key].items():
            into[key][b] = into[key].get(b, 0) + c
    into["received"] += r["received"]
    into["last"] = max(into["last"], r["last"])
    into["cpu"] += r["cpu"]
    into["sys"] += r["sys"]
    for i, d in r["docs"].items():
        t = into["docs"].setdefault(i, [0, d[1], d[2], d[3]])
        t[0] += d[0]; t[1] = min(t[1], d[1]); t[2] = max(t[2], d[2])
        t[3] = d[3] if t[3] < 0 else min(t[3], d[3]) if d[3] >= 0 else t[3]


def pct(h, p):
    want = p * sum(h.values())
    acc = 0
    for b in sorted(h):
        acc += h[b]
        if acc >= want:
            return (b + 1) * 0.1
    return float("nan")


def mean(h):
    total = sum(h.values())
    return sum((b + 0.5) * 0.1 * c for b, c in h.items()) / total if total else float("nan")


def top(h):
    return max(h) * 0.1 + 0.1 if h else 0


def row(label, clients, opened, r, rss_mb, peak_mb, weft_s, weft_sys, pg):
    secs = (r["last"] - int(first_us)) / 1e6 if r["received"] else 0
    rate = r["received"] / secs if secs > 0 else 0
    want = clients * wrote
    complete = r["received"] == want and sum(r["commit"].values()) == r["received"]
    h, c = r["hist"], r["commit"]
    verdict = lambda x: "met" if x and complete and pct(x, 0.99) < 250 else "short"
    return (f"{n:>8} {node_count:>5} {label:>4} {opened:>6} {wrote:>6} {r['received']:>10} {want:>10} {rate:>9.0f} {mean(h):>8.1f} "
            f"{pct(h, 0.5):>7.1f} {pct(h, 0.99):>7.1f} {top(h):>8.1f} {mean(c):>8.1f} {pct(c, 0.5):>7.1f} {pct(c, 0.99):>7.1f} "
            f"{top(c):>8.1f} {rss_mb:>8.0f} {peak_mb:>8.0f} {weft_s:>7.1f} {weft_sys:>6.1f} {r['cpu']:>8.1f} {r['sys']:>6.1f} "
            f"{pg:>6} {load:>5}  p99<250ms commit:{verdict(c)} post:{verdict(h)}"
            + (f"  ({werr} write errors)" if werr != "0" else ""))


def spread(label, r):
    """Per document: commit to the first receipt (the event reaching the node and its first
    socket), first to last receipt (the fan-out), in ms: p50, p99, max over the documents."""
    docs = r["docs"].values()
    first = sorted(d[3] / 1000 for d in docs if d[3] >= 0)
    fan = sorted((d[2] - d[1]) / 1000 for d in docs)
    q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")
    return (f"detail {n:>8} {node_count:>5} {label:>4} {len(fan):>6} {q(first, .5):>9.1f} {q(first, .99):>9.1f} {first[-1] if first else 0:>9.1f} "
            f"{q(fan, .5):>9.1f} {q(fan, .99):>9.1f} {fan[-1] if fan else 0:>9.1f}")


rows = []
details = []
total = empty()
t_open = t_clients = 0
t_rss = t_peak = t_cpu = t_sys = 0.0
for spec in filter(None, nodes.split(";")):
    k, opened, clients, rss, peak, u0, s0, u1, s1 = spec.split()
    r = read(files.get(k, []))
    weft_s = (int(u1) + int(s1) - int(u0) - int(s0)) / hz
    weft_sys = (int(s1) - int(s0)) / hz
    rows.append(row(k, int(clients), int(opened), r, int(rss) / 1024, int(peak) / 1024, weft_s, weft_sys, "-"))
    details.append(spread(k, r))
    add(total, r)
    t_open += int(opened)
    t_clients += int(clients)
    t_rss += int(rss) / 1024
    t_peak += int(peak) / 1024
    t_cpu += weft_s
    t_sys += weft_sys
if len(rows) > 1:
    print("\n".join(rows))
print(row("all", t_clients, t_open, total, t_rss, t_peak, t_cpu, t_sys, pg_cpu))
if len(details) > 1:
    print("\n".join(details))
print(spread("all", total))
