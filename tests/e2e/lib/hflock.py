#!/usr/bin/python3
"""hflock.py - a download of huggingface_hub's kind, for tests: it takes the
lock huggingface_hub takes (fcntl.flock on CACHE/.locks/models--ORG--NAME/
ETAG.lock, the folders made) and, holding it, writes SOURCE into
CACHE/models--ORG--NAME/blobs/ETAG.incomplete a piece at a time over
SECONDS, renames it to blobs/ETAG, then lets go.

    hflock.py CACHE REPO_FOLDER ETAG SOURCE SECONDS READY_FILE

READY_FILE is made once the lock is held. Stdlib only.
"""
import fcntl
import os
import sys
import time


def main():
    cache, repo, etag, source, seconds, ready = sys.argv[1:7]
    lock = os.path.join(cache, ".locks", repo, etag + ".lock")
    blob = os.path.join(cache, repo, "blobs", etag)
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    os.makedirs(os.path.dirname(blob), exist_ok=True)
    data = open(source, "rb").read()
    with open(lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        open(ready, "w").close()
        pieces = 10
        with open(blob + ".incomplete", "ab") as out:
            for k in range(pieces):
                out.write(data[k * len(data) // pieces:(k + 1) * len(data) // pieces])
                out.flush()
                time.sleep(float(seconds) / pieces)
        os.replace(blob + ".incomplete", blob)
        fcntl.flock(f, fcntl.LOCK_UN)


if __name__ == "__main__":
    main()
