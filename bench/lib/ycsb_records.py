#!/usr/bin/env python3
"""The YCSB records of bench/ycsb (seed 3): N ndjson documents {"_id": "userI", "field0".."field9"},
each field 100 random letters and digits (~1 KB a document).  usage: ycsb_records.py N"""
import json
import random
import string
import sys

n = int(sys.argv[1])
rnd = random.Random(3)
chars = string.ascii_letters + string.digits
for i in range(n):
    doc = {"_id": "user%d" % i}
    for f in range(10):
        doc["field%d" % f] = "".join(rnd.choices(chars, k=100))
    sys.stdout.write(json.dumps(doc, separators=(",", ":")) + "\n")
