"""Runs pipelines with mongomock for AggregationDifferentialTest.

Reads {"documents": [...], "pipelines": [[stage, ...], ...]} (JSON) on stdin and writes one JSON
line per pipeline: {"ok": [result, ...]}, or {"error": "..."} when mongomock refuses or fails it
({"unsupported": "..."} when mongomock does not implement what the pipeline uses).
"""
import json
import sys

import mongomock


def main():
    request = json.load(sys.stdin)
    collection = mongomock.MongoClient().db.c
    if request["documents"]:
        collection.insert_many(request["documents"])
    for pipeline in request["pipelines"]:
        try:
            answer = {"ok": list(collection.aggregate(pipeline))}
        except NotImplementedError as e:
            answer = {"unsupported": str(e)}
        except Exception as e:  # noqa: BLE001 - any failure is "an error" to compare with Weft's 400
            answer = {"error": type(e).__name__ + ": " + str(e)}
        sys.stdout.write(json.dumps(answer, default=str) + "\n")


if __name__ == "__main__":
    main()
