#!/usr/bin/env python3
"""Data for Weft's benchmarks, deterministic (same bytes every run).

  gen.py links N MATCHES       JSON array of N ~400-byte docs {"name", "links":[{"url"}...], ...};
                               exactly MATCHES of them have a url containing "pach"
  gen.py links-ndjson N MATCHES the same documents as ndjson, one per line
  gen.py create N THREADS      ndjson: the N documents bench/create.lua POSTs (same formula)
  gen.py messages N AUTHORS    ndjson: N messages {id, text, author, createdAt}, round-robin authors
  gen.py english-ndjson N      ndjson: N ~500-byte English-like docs {"title", "body", "n"}, words drawn
                               Zipf-like from a fixed vocabulary (function words, then made-up words with
                               English endings: -s, -ed, -ing)
  gen.py english-word RANK     the vocabulary's word of that frequency rank (0 = most frequent)
  gen.py urlencode STRING      percent-encodes STRING for a query parameter
"""
import json
import sys
import urllib.parse

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
         "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu river stone "
         "cloud maple cedar birch ember frost gale harbor island jungle kettle lantern meadow "
         "nectar orchard pebble quartz raven saddle timber umber valley willow yarrow zephyr amber "
         "basalt copper dune fjord glacier heron ivory jasper koala lotus").split()
assert len(WORDS) == 64 and not any("pach" in w for w in WORDS)


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def link_doc(i, match_at):
    w = [WORDS[(i * 7 + k * 13) % 64] for k in range(12)]
    urls = [f"https://{w[0]}-{w[1]}.example.org/{w[2]}/{w[3]}",
            f"https://docs.{w[4]}.example.net/{w[5]}-{i}",
            f"https://{w[6]}.example.com/{w[7]}/{w[8]}/{i}"]
    if i in match_at:
        urls[1] = f"https://projects.apache.org/{w[5]}-{i}"
    return {
        "name": f"{w[9]} {w[10]} {i}",
        "description": " ".join(WORDS[(i * 11 + k * 5) % 64] for k in range(8)),
        "links": [{"url": u, "title": f"{w[k]} link"} for k, u in enumerate(urls)],
        "tags": [w[11], w[0]],
        "stars": (i * 7919) % 10000,
        "active": i % 3 != 0,
    }


def match_positions(n, matches):
    step = max(1, n // max(1, matches))
    return {i * step + step // 2 for i in range(matches)}


def links(n, matches):
    match_at = match_positions(n, matches)
    docs = [link_doc(i, match_at) for i in range(n)]
    assert sum(1 for d in docs if any("pach" in l["url"] for l in d["links"])) == matches
    sys.stdout.write(compact(docs))


def links_ndjson(n, matches):
    """The documents of links(), one per line (for large ndjson loads)."""
    match_at = match_positions(n, matches)
    out = sys.stdout
    for i in range(n):
        out.write(compact(link_doc(i, match_at)))
        out.write("\n")


def create_doc(thread, seq):
    """Must stay identical to make_doc() in bench/create.lua."""
    text = " ".join(WORDS[(seq * 31 + thread * 17 + k * 7) % 64] for k in range(40))
    return ('{"name":"user-%d-%d","thread":%d,"seq":%d,"email":"user%d.%d@example.org",'
            '"score":%d,"active":%s,"tags":["%s","%s"],"text":"%s"}'
            % (thread, seq, thread, seq, thread, seq, (seq * 7919) % 100000,
               "true" if seq % 2 == 0 else "false",
               WORDS[seq % 64], WORDS[(seq + thread) % 64], text))


def create(n, threads):
    out = sys.stdout
    for t in range(threads):
        share = n // threads + (1 if t < n % threads else 0)
        for seq in range(1, share + 1):
            out.write(create_doc(t, seq))
            out.write("\n")


def message(i, authors):
    text = " ".join(WORDS[(i * 13 + k * 3) % 64] for k in range(12))
    return compact({
        "id": "%08x-%04x-4%03x-8%03x-%012x" % (i, i % 65536, i % 4096, (i * 7) % 4096, i * 2654435761 % (1 << 48)),
        "text": text,
        "author": f"author-{i % authors}",
        "createdAt": "2026-11-22T%02d:%02d:%02d.000Z" % ((i // 3600) % 24, (i // 60) % 60, i % 60),
    })


def messages(n, authors):
    for i in range(n):
        sys.stdout.write(message(i, authors))
        sys.stdout.write("\n")


FUNCTION_WORDS = ("the of and a to in is it that was for on are as with his they at be this from have or by "
                  "one had not but what all were when we there can an your which their said if do will each "
                  "about how up out them then she many some so these would other into has more her two like him "
                  "see time could no make than first been its who now people my made over did down only way find").split()
SYLLABLES = ("ka lo mer tan vi sor pel dru fen gal hol jin kor lum nav pri quen ros sta tor ul ver wim "
             "yor zan bel cas dor ell fin gor hap ist jol ken lar mon").split()
ENDINGS = ("", "", "", "s", "ed", "ing", "er", "ly")


def english_vocabulary():
    words = list(FUNCTION_WORDS)
    seen = set(words)
    n = len(SYLLABLES)
    k = 0
    while len(words) < 5000:
        a, b, c = SYLLABLES[k % n], SYLLABLES[(k // n) % n], SYLLABLES[(k * 7 + 3) % n]
        stem = a + b + (c if k % 3 == 0 else "")
        for ending in ENDINGS[k % len(ENDINGS):k % len(ENDINGS) + 1]:
            w = stem + ending
            if w not in seen:
                seen.add(w)
                words.append(w)
        k += 1
    return words


def english_ndjson(n):
    import itertools
    import random
    vocab = english_vocabulary()
    cum = list(itertools.accumulate(1.0 / (r + 1) for r in range(len(vocab))))
    rnd = random.Random(22)
    out = sys.stdout
    for i in range(n):
        title = " ".join(rnd.choices(vocab, cum_weights=cum, k=5)).capitalize()
        body = " ".join(rnd.choices(vocab, cum_weights=cum, k=70)).capitalize() + "."
        out.write(compact({"title": title, "body": body, "n": i}))
        out.write("\n")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "links":
        links(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "links-ndjson":
        links_ndjson(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "create":
        create(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "messages":
        messages(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "english-ndjson":
        english_ndjson(int(sys.argv[2]))
    elif cmd == "english-word":
        sys.stdout.write(english_vocabulary()[int(sys.argv[2])])
    elif cmd == "urlencode":
        sys.stdout.write(urllib.parse.quote(sys.argv[2], safe=""))
    else:
        sys.exit(f"unknown command {cmd}")
