# The rows of ./weft bench streams for one client count: one per Weft node (when there are
# several) and one for all of them, from the histogram files of bench/lib/StreamLoad.java.
#   python3 streams_rows.py N NODE_COUNT WROTE WRITE_ERRORS FIRST_US LOAD HZ PG_CPU_S NODES WARMUP K:PREFIX...
# NODES: "k open clients rss_kb peak_kb user0 sys0 user1 sys1;" per node (CPU in clock ticks);
# K:PREFIX: the load process whose histograms are PREFIX.hist, connected to node K.
# WARMUP: the warm-up writes (documents 0..WARMUP-1), left out of the rows' figures and shown
# beside them counted in.
import sys

n, node_count, wrote, werr, first_us, load, hz, pg_cpu, nodes, warmup = sys.argv[1:11]
hz = int(hz)
wrote = int(wrote)
warmup = int(warmup)
files = {}
for g in sys.argv[11:]:
    k, path = g.split(":", 1)
    files.setdefault(k, []).append(path + ".hist")


def empty():
    return dict(hist={}, commit={}, warm={}, warm_commit={}, received=0, warm_received=0, last=0, cpu=0.0, sys=0.0, docs={})


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
                r["warm_received"] += int(d.get("warm_received", 0))
                r["last"] = max(r["last"], int(d["last_us"]))
                r["sys"] += int(d["run_sys_ticks"]) / hz
                r["cpu"] += (int(d["run_user_ticks"]) + int(d["run_sys_ticks"])) / hz
            elif line.startswith("e "):
                i, count, low, high, commit_low, commit_high, late = (list(map(int, line[2:].split())) + [-1, 0])[:7]
                merge(r["docs"], i, [count, low, high, commit_low, commit_high, late])
            elif line.startswith(("c ", "w ", "wc ")):
                key, b, c = line.split()
                into = r[{"c": "commit", "w": "warm", "wc": "warm_commit"}[key]]
                into[int(b)] = into.get(int(b), 0) + int(c)
            else:
                b, c = map(int, line.split())
                r["hist"][b] = r["hist"].get(b, 0) + c
    return r


def merge(docs, i, d):
    """Adds one document's receipts [count, low, high, commit_low, commit_high, late] to docs."""
    t = docs.get(i)
    if t is None:
        docs[i] = list(d)
        return
    t[0] += d[0]; t[1] = min(t[1], d[1]); t[2] = max(t[2], d[2])
    t[3] = d[3] if t[3] < 0 else min(t[3], d[3]) if d[3] >= 0 else t[3]
    t[4] = max(t[4], d[4]); t[5] += d[5]


def add(into, r):
    for key in ("hist", "commit", "warm", "warm_commit"):
        for b, c in r[key].items():
            into[key][b] = into[key].get(b, 0) + c
    into["received"] += r["received"]
    into["warm_received"] += r["warm_received"]
    into["last"] = max(into["last"], r["last"])
    into["cpu"] += r["cpu"]
    into["sys"] += r["sys"]
    for i, d in r["docs"].items():
        merge(into["docs"], i, d)


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
            + (f"  ({werr} write errors)" if werr != "0" else "")
            + (unwarmed(r) if warmup else ""))


def unwarmed(r):
    """The same percentiles with the warm-up writes' receipts counted, as a run without warm-up has them."""
    both = lambda a, b: {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}
    c, h = both(r["commit"], r["warm_commit"]), both(r["hist"], r["warm"])
    return (f"  with the {warmup} warm-up writes ({r['warm_received']} receipts) counted: c_p50 {pct(c, 0.5):.1f} "
            f"c_p99 {pct(c, 0.99):.1f} c_max {top(c):.1f}, p99 {pct(h, 0.99):.1f}")


def spread(label, r):
    """Per measured document: commit to the first receipt (the event reaching the node and its first
    socket), first to last receipt (the fan-out), in ms: p50, p99, max over the documents."""
    docs = [d for i, d in r["docs"].items() if i >= warmup]  # the measured writes
    first = sorted(d[3] / 1000 for d in docs if d[3] >= 0)
    fan = sorted((d[2] - d[1]) / 1000 for d in docs)
    q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")
    return (f"detail {n:>8} {node_count:>5} {label:>4} {len(fan):>6} {q(first, .5):>9.1f} {q(first, .99):>9.1f} {first[-1] if first else 0:>9.1f} "
            f"{q(fan, .5):>9.1f} {q(fan, .99):>9.1f} {fan[-1] if fan else 0:>9.1f}")


def in_order(label, r):
    """Per document in write order: commit to the first and to the last receipt (ms), and the
    share of its receipts later than 250 ms after the commit: whether a few documents (the first,
    JIT-cold ones, or those meeting another write's fan-out) or all of them make the p99."""
    total = sum(d[0] for d in r["docs"].values()) or 1
    out = []
    for i in sorted(r["docs"]):
        d = r["docs"][i]
        out.append(f"{i}:{d[3] / 1000:.0f}-{d[4] / 1000:.0f}" + (f"/{100 * d[5] / total:.2f}%" if d[5] else ""))
    late = sum(d[5] for d in r["docs"].values())
    return f"order {label:>4} late(>250ms) {100 * late / total:.2f}% of receipts: " + " ".join(out)


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
print(in_order("all", total))
