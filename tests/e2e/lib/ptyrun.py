#!/usr/bin/python3
"""ptyrun.py - run a command with its standard error (and, with --ask, its
standard input) on a pseudo-terminal, as a person's terminal would be.

    ptyrun.py [--cols N] [--ask PROMPT=ANSWER] [--stdout FILE] -- CMD [ARG ...]

The terminal is 24 rows by N columns (80). Without --ask standard input is
empty; with it, standard input is the terminal too and ANSWER and a newline
are typed once PROMPT has been written (ANSWER "^D": Ctrl-D alone, the end
of the input). Standard output goes to FILE
(default: nowhere). Prints what the command wrote to the terminal, byte
for byte, then a line "EXIT <status>". Gives up after 60 s.
"""
import argparse
import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cols", type=int, default=80)
    ap.add_argument("--ask", default="")
    ap.add_argument("--stdout", default=os.devnull)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    prompt, _, answer = a.ask.partition("=")
    m, s = pty.openpty()
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 24, a.cols, 0, 0))
    with open(a.stdout, "wb") as out:
        p = subprocess.Popen(cmd, stdin=s if prompt else subprocess.DEVNULL, stdout=out,
                             stderr=s, close_fds=True)
    os.close(s)
    seen, t0 = b"", time.time()
    while time.time() - t0 < 60:
        ready, _, _ = select.select([m], [], [], 0.2)
        if not ready:
            if p.poll() is not None:
                break
            continue
        try:
            chunk = os.read(m, 4096)
        except OSError:  # the command closed the terminal's last copy
            break
        if not chunk:
            break
        seen += chunk
        if prompt and prompt.encode() in seen:
            os.write(m, b"\x04" if answer == "^D" else answer.encode() + b"\n")
            prompt = ""
    if p.poll() is None:
        p.kill()
    rc = p.wait()
    sys.stdout.buffer.write(seen + b"\nEXIT %d\n" % rc)


if __name__ == "__main__":
    main()
