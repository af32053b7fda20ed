#!/usr/bin/python3
"""storm.py - the storm soak (issue 33): a seeded random key stream sent to the
real interface under tmux in bursts (0-1 ms apart) and spaced, through one
tmux control-mode client (no process started per key), with attnviz started
again after every exit with status 0, as a user would. The stream is
tests/soak/stormgen.py's: lessons (pages, answers, reveals, left and opened
again) with the combining views, the heads table, views, settings, edits,
mouse reports, pastes, resizes and quits in between.

  storm.py [--bin PATH] [--seed S] [--keys N | --minutes M] [--record FILE]
           [--replay FILE] [--gap-scale F] [--hang S] [--check-every N] [--keep]

--keys N        stop after N keys (default 3000; a mouse report, an escape
                sequence or a control byte is one key, a typed text one a
                character)
--minutes M     stop after M minutes instead
--record FILE   write every action as it is sent (always to stream.events in
                the work folder, kept on a finding)
--replay FILE   send FILE's actions (a recording, tests/soak/regress/*.events)
                with their gaps (times --gap-scale) instead of a new stream
--hang S        a hang: busy with the screen still, or F1 unanswered, for S s
                (default 15)
--check-every N a probe every N actions (default 600): Esc until browsing,
                F1 shows the help, F1 closes it
The binary is $ATTNVIZ unless --bin (the ASan/UBSan build reports on stderr).
It ends on the first finding: an exit with another status than 0 (139 is
SIGSEGV, 134 SIGABRT: an assertion or a sanitizer), a sanitizer report or
anything on stderr, a hang. Prints "ok - storm ..." / "not ok - storm ..."
lines and `storm keys=K actions=A restarts=R lesson_pages=P reveals=V
findings=F seed=S`; a finding keeps the work folder and prints the command
that replays its recording.
"""
import argparse, os, re, shlex, signal, subprocess, sys, tempfile, threading, time

sys.dont_write_bytecode = True  # no __pycache__ left in tests/soak
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stormgen  # noqa: E402

SENTENCE = "The trophy did not fit in the suitcase because it was too big."
SANITIZER = re.compile(r"Sanitizer|runtime error|AddressSanitizer|LeakSanitizer")


def parse_args():
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--bin", default=os.environ.get("ATTNVIZ", "./attnviz"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keys", type=int, default=3000)
    ap.add_argument("--minutes", type=float, default=0)
    ap.add_argument("--record", default="")
    ap.add_argument("--replay", default="")
    ap.add_argument("--gap-scale", type=float, default=1.0)
    ap.add_argument("--hang", type=float, default=15)
    ap.add_argument("--check-every", type=int, default=600)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-h", "--help", action="store_true")
    a = ap.parse_args()
    if a.help:
        print(__doc__.split("\n\n", 1)[1].split("\"\"\"")[0])
        sys.exit(0)
    return a


class Tmux:
    """A tmux server of its own, the program looping in its pane, and one
    control-mode client that takes commands with no process per command."""

    def __init__(self, work, binary):
        self.sock = f"attnviz-storm-{os.getpid()}"
        self.work = work
        script = os.path.join(work, "loop.sh")
        # -isig -ixon: between two runs the terminal is the shell's, and a
        # Ctrl-C, Ctrl-\ or Ctrl-S of the stream waits for the next run as
        # bytes (the program reads raw) instead of killing or freezing the loop.
        with open(script, "w") as f:
            f.write(f"""stty -isig -ixon
cd {shlex.quote(work)}
while :; do
    sh -c 'echo $$ >>pids; exec "$@"' sh env TERM=xterm-256color LC_ALL=C.UTF-8 \\
        ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \\
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \\
        {shlex.quote(binary)} {shlex.quote(SENTENCE)} 2>>stderr.txt
    st=$?
    echo $st >>status
    [ $st = 0 ] && [ ! -e stop ] || break
done
echo EXITED:$st
stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' '; echo
sleep 3600
""")
        self.run("new-session", "-d", "-s", "s", "-x", "120", "-y", "40", f"sh {shlex.quote(script)}")
        self.run("set-option", "-g", "mouse", "off")
        self.lock = threading.Lock()
        self.reattached = 0
        self._attach()

    def _attach(self):
        self.cc = subprocess.Popen(["tmux", "-L", self.sock, "-C", "attach", "-t", "s", "-f", "no-output"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.sent, self.done = 0, 0
        threading.Thread(target=self._read, args=(self.cc,), daemon=True).start()

    def _read(self, cc):
        for line in cc.stdout:
            if line.startswith(b"%end") or line.startswith(b"%error"):
                with self.lock:
                    if cc is self.cc:
                        self.done += 1

    def run(self, *a):
        return subprocess.run(["tmux", "-L", self.sock] + [str(x) for x in a],
                              capture_output=True, text=True, errors="replace").stdout

    def send(self, cmd):
        """One command; a control client that tmux let go (it did once in a
        4-minute run on a loaded machine) is replaced by a new one."""
        try:
            self.cc.stdin.write(cmd.encode() + b"\n")
        except OSError:
            self.cc.wait()
            self.reattached += 1
            with self.lock:
                self._attach()
            self.cc.stdin.write(cmd.encode() + b"\n")
        self.sent += 1

    def drain(self, limit):
        """Wait until the server has run every command sent (and the
        attach, whose reply is a block too)."""
        t0 = time.monotonic()
        while self.done < self.sent + 1 and time.monotonic() - t0 < limit:
            time.sleep(0.005)
        return self.done >= self.sent + 1

    def screen(self):
        return self.run("capture-pane", "-p", "-t", "s")

    def pane_pid(self):
        try:
            return int(self.run("display", "-p", "-t", "s", "#{pane_pid}").strip())
        except ValueError:
            return 0

    def close(self):
        if self.cc.poll() is not None:
            return
        try:
            self.cc.stdin.close()
        except OSError:
            pass
        self.run("kill-server")
        self.cc.wait()


def program_pid(tm):
    """attnviz's pid: the pane's shell's child (0 between two runs)."""
    pp = tm.pane_pid()
    try:
        with open(f"/proc/{pp}/task/{pp}/children") as f:
            kids = f.read().split()
        return int(kids[0]) if kids else 0
    except (OSError, ValueError):
        return 0


def segfault_where(work, binary):
    """The kernel's line for the last run's segfault (when dmesg may be read),
    mapped back to functions and lines with addr2line."""
    try:
        with open(os.path.join(work, "pids")) as f:
            pid = f.read().split()[-1]
        log = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, IndexError, subprocess.SubprocessError):
        return []
    m = re.search(r"\[" + pid + r"\]: (segfault at \S+).* in [^\[]*\[([0-9a-f]+),", log)
    if not m:
        return []
    a2l = subprocess.run(["addr2line", "-f", "-i", "-e", binary, "0x" + m.group(2)],
                         capture_output=True, text=True).stdout.split("\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + "/"
    frames = [f"{a2l[k]} {a2l[k + 1].replace(root, '')}" for k in range(0, len(a2l) - 1, 2)]
    return [f"{m.group(1)} (pid {pid}, offset 0x{m.group(2)})"] + frames


def proc_state(pid):
    """', still running (state S, waiting in wchan W)' for a report."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/{pid}/wchan") as f:
            wchan = f.read().strip() or "-"
    except (OSError, IndexError):
        return ", and it is gone"
    return f", still running (state {st}, waiting in {wchan})"


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            a = f.read().rsplit(")", 1)[1].split()
        return int(a[11]) + int(a[12])
    except (OSError, IndexError, ValueError):
        return -1


class Sampler(threading.Thread):
    """Looks at the screen every 0.2 s: the lesson pages shown and the answers
    revealed (what the stream reached), by lesson title and page."""
    PAGE = re.compile(r"Lesson (\d+)/(\d+): ([^│\n]*?)\s*(?:│|$)", re.M)

    def __init__(self, tm):
        super().__init__(daemon=True)
        self.tm, self.stop = tm, False
        self.pages, self.shown, self.reveals, self.revealed = set(), 0, 0, False

    def run(self):
        while not self.stop:
            s = self.tm.screen()
            m = self.PAGE.search(s)
            if m:
                self.pages.add((m.group(3), m.group(1)))
                self.shown += 1
                rv = bool(re.search(r"^.*answer: ", s, re.M))
                if rv and not self.revealed:
                    self.reveals += 1
                self.revealed = rv
            time.sleep(0.2)


class Storm:
    def __init__(self, a, work):
        self.a, self.work = a, work
        self.tm = Tmux(work, a.bin)
        self.keys = self.actions = self.restarts = self.probes = self.exports = 0
        self.findings = []
        self.statuses = []
        self.status_size = 0
        self.stderr_size = 0
        self.last = []
        self.where = []
        self.rec = open(a.record or os.path.join(work, "stream.events"), "w")
        self.rec.write(f"# storm.py stream, seed {a.seed}{', replay of ' + a.replay if a.replay else ''}\n")

    def log(self, msg):
        print(f"# storm: {msg}", flush=True)

    def finding(self, kind, text):
        self.findings.append(f"{kind}: {text}")
        self.log(f"FINDING at action {self.actions} (key {self.keys}): {kind}: {text}")

    def statuses_changed(self):
        try:
            return os.path.getsize(os.path.join(self.work, "status")) != self.status_size
        except OSError:
            return False

    def check_exit(self):
        """New exit statuses: 0 is a restart, anything else a finding."""
        p = os.path.join(self.work, "status")
        try:
            size = os.path.getsize(p)
        except OSError:  # no exit yet
            return self.check_stderr()
        if size != self.status_size:
            self.status_size = size
            with open(p) as f:
                sts = f.read().split()
            for st in sts[len(self.statuses):]:
                self.statuses.append(st)
                if st == "0":
                    self.restarts += 1
                    self.rec.write(f"# exit 0 after action {self.actions}: started again\n")
                else:
                    sig = int(st) - 128 if st.isdigit() and int(st) > 128 else 0
                    name = f" ({signal.Signals(sig).name})" if sig in signal.valid_signals() else ""
                    self.rec.write(f"# exit {st}{name} after action {self.actions}\n")
                    self.finding("crash", f"attnviz exited with status {st}{name}")
                    self.where = segfault_where(self.work, self.a.bin)
                    return False
        return self.check_stderr()

    def check_stderr(self):
        p = os.path.join(self.work, "stderr.txt")
        try:
            size = os.path.getsize(p)
        except OSError:
            return True
        if size != self.stderr_size:
            # the shell's "Segmentation fault" comes before the status: an
            # exit is said as one, with its status, when it follows
            time.sleep(0.5)
            if os.path.getsize(p) != size or self.statuses_changed():
                return self.check_exit()
            self.stderr_size = size
            with open(p, errors="replace") as f:
                err = f.read()
            m = SANITIZER.search(err)
            self.finding("sanitizer" if m else "stderr",
                         (err[m.start():] if m else err).strip().splitlines()[0][:200])
            return False
        return True

    def send(self, line):
        """One action line 'GAP KIND ARGS'; False once the stream must end."""
        gap, kind, *args = line.split()
        g = float(gap) * self.a.gap_scale / 1000.0
        if g > 0:
            time.sleep(g)
        if kind == "probe":
            self.rec.write(line + "\n")
            return self.probe()
        if kind == "key":
            self.tm.send("send-keys -t s " + " ".join(shlex.quote(k) for k in args))
            self.keys += len(args)
        elif kind == "resize":
            self.tm.send(f"resize-window -t s -x {args[0]} -y {args[1]}")
        else:
            self.tm.send("send-keys -t s -H " + " ".join(args))
            if kind in ("text", "burst"):
                self.keys += len(bytes.fromhex("".join(args)).decode("utf-8", "replace"))
            else:
                self.keys += 1
        self.actions += 1
        self.rec.write(line + "\n")
        self.last.append(line if len(line) < 120 else line[:117] + "...")
        del self.last[:-40]
        return self.check_exit()

    def wait_started(self, limit):
        """The program running and its title drawn (after a restart)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < limit:
            if not self.check_exit():
                return 0
            pid = program_pid(self.tm)
            if pid and " attnviz | " in self.tm.screen():
                return pid
            time.sleep(0.05)
        return program_pid(self.tm)

    def wait_idle(self, pid):
        """Until the program is idle (three quiet polls); a hang is a busy
        stretch with the screen still for --hang seconds. The live training
        view is busy for ever, its screen changing: given up after a minute."""
        quiet, c0, scr, changed = 0, cpu_ticks(pid), self.tm.screen(), time.monotonic()
        t0 = changed
        while quiet < 3 and time.monotonic() - t0 < max(60, 4 * self.a.hang):
            time.sleep(0.05)
            c = cpu_ticks(pid)
            if c < 0:
                return True  # it ended: check_exit says how
            quiet = quiet + 1 if c - c0 <= 1 else 0
            c0 = c
            s = self.tm.screen()
            if s != scr:
                scr, changed = s, time.monotonic()
            elif quiet == 0 and time.monotonic() - changed > self.a.hang:
                self.finding("hang", f"busy with the screen unchanged for {self.a.hang:g} s")
                return False
        return True

    def probe(self):
        """Does it answer? Back to browsing (Esc never quits), F1 opens the
        help, F1 closes it. Its keys are its own, not the stream's."""
        self.probes += 1
        self.tm.send("resize-window -t s -x 120 -y 40")
        if not self.tm.drain(self.a.hang):
            self.finding("hang", "tmux did not take the stream's keys")
            return False
        for _ in range(3):  # exits already queued (q in the stream) restart it
            pid = self.wait_started(self.a.hang)
            if not self.check_exit():
                return False
            if not pid:
                self.finding("hang", f"attnviz did not start again within {self.a.hang:g} s")
                return False
            if not self.wait_idle(pid):
                return False
            if program_pid(self.tm) == pid:
                break
        for _ in range(6):
            s = self.tm.screen()
            lines = s.splitlines()
            browsing = lines and lines[0].startswith(" attnviz | ") and "EDITING" not in lines[0]
            if browsing and not re.search(r"(Esc|F1) closes", s):
                break
            self.tm.send("send-keys -t s Escape")
            time.sleep(0.25)
            if not self.wait_idle(pid):
                return False
        t0 = time.monotonic()
        self.tm.send("send-keys -t s F1")
        while "F1 closes" not in self.tm.screen():
            if not self.check_exit():
                return False
            if time.monotonic() - t0 > self.a.hang:
                self.finding("hang", f"F1 did not show the help within {self.a.hang:g} s")
                return False
            time.sleep(0.05)
        self.tm.send("send-keys -t s F1")
        exports = [f for f in os.listdir(self.work) if f.startswith("attnviz-")]
        for f in exports:
            os.unlink(os.path.join(self.work, f))
        self.exports += len(exports)
        return self.check_exit()

    def quit(self):
        """The end: the loop told to stop, q from browsing, status 0, the
        terminal back in canonical mode with echo."""
        if not self.probe():
            return False
        open(os.path.join(self.work, "stop"), "w").close()
        time.sleep(0.3)
        self.tm.send("send-keys -t s q")
        t0 = time.monotonic()
        while "EXITED:" not in self.tm.screen() and time.monotonic() - t0 < self.a.hang:
            time.sleep(0.05)
        time.sleep(0.3)
        s = self.tm.screen()
        n = len(self.statuses)
        if not self.check_exit():
            return False
        self.restarts -= len(self.statuses) > n  # the last exit is not a restart
        if "EXITED:" not in s or len(self.statuses) == n:
            self.finding("quit", "q did not end attnviz" + proc_state(program_pid(self.tm)))
            return False
        # keys sent after the q are echoed by the terminal, around the lines
        if not re.search(r"(^|[^-])icanon echo\b", s.split("EXITED:", 1)[1]):
            self.finding("terminal", "the terminal is not restored after q")
            return False
        return True


def lines_of(a, gen_stream):
    if a.replay:
        with open(a.replay) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    yield line.rstrip("\n")
    else:
        n = 0
        for line in gen_stream:
            n += 1
            if a.check_every and n % a.check_every == 0:
                yield "0 probe"
            yield line


def main():
    a = parse_args()
    a.bin = os.path.abspath(a.bin)
    if a.replay:
        a.replay = os.path.abspath(a.replay)
    if not os.access(a.bin, os.X_OK):
        print(f"not ok - storm: no binary {a.bin}")
        return 1
    work = tempfile.mkdtemp(prefix="attnviz-storm.")
    st = Storm(a, work)
    try:
        return storm(a, st, work)
    finally:
        st.tm.close()
        sock = os.path.join(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}", st.tm.sock)
        if os.path.exists(sock):
            os.unlink(sock)


def storm(a, st, work):
    sampler = Sampler(st.tm)
    t_start = time.monotonic()
    deadline = t_start + a.minutes * 60 if a.minutes else 0
    name = os.path.relpath(a.replay) if a.replay.startswith(os.getcwd() + "/") else a.replay
    src = "replay of " + name if a.replay else f"seed {a.seed}"
    st.log(f"{src}, binary {a.bin}, work {work}, "
           + (f"{a.minutes:g} minutes" if a.minutes else ("to the end" if a.replay else f"{a.keys} keys")))
    ok = bool(st.wait_started(10))
    if not ok:
        st.finding("start", "attnviz did not start")
    sampler.start()
    next_report = t_start + 30
    if ok:
        for line in lines_of(a, stormgen.Gen(a.seed).stream()):
            if not st.send(line):
                ok = False
                break
            now = time.monotonic()
            if (deadline and now > deadline) or (not deadline and not a.replay and st.keys >= a.keys):
                break
            if now > next_report:
                next_report = now + 30
                st.log(f"{int(now - t_start)} s: {st.keys} keys, {st.actions} actions, "
                       f"{st.restarts} restarts, {len(sampler.pages)} lesson pages")
        st.rec.flush()
        if ok:
            time.sleep(1)  # the last keys taken (a crash among them shows)
            ok = st.check_exit() and st.quit()
    secs = time.monotonic() - t_start
    sampler.stop = True
    st.rec.close()
    if ok:
        print(f"ok - storm: {src}: {st.keys} keys in {st.actions} actions, {st.restarts} restarts, "
              f"{st.probes} probes answered, q exits 0, terminal restored, nothing on stderr ({secs:.0f} s)")
    else:
        print(f"not ok - storm: {src}: {st.findings[0]} (after {st.keys} keys, {st.actions} actions, "
              f"{st.restarts} restarts, {secs:.0f} s)")
        for line in st.where:
            print(f"# kernel: {line}")
        print("# the last actions sent:")
        for line in st.last:
            print(f"#   {line}")
        print("# screen:")
        for line in st.tm.screen().splitlines():
            print(f"#   | {line}")
        try:
            with open(os.path.join(work, "stderr.txt"), errors="replace") as f:
                for line in f.read().splitlines()[:40]:
                    print(f"#   stderr: {line}")
        except OSError:
            pass
        rec = a.record or os.path.join(work, "stream.events")
        print(f"# recorded: {rec}")
        print(f"# replay: tests/soak/storm.py --replay {rec} --bin {a.bin}")
    pages = sorted(sampler.pages)
    if st.tm.reattached:
        print(f"# storm: the tmux control client was attached again {st.tm.reattached} times")
    print(f"# storm: lesson pages reached: {len(pages)} ({sampler.shown} screens sampled in a lesson, "
          f"{sampler.reveals} answers revealed); exports {st.exports}")
    print(f"storm keys={st.keys} actions={st.actions} restarts={st.restarts} lesson_pages={len(pages)} "
          f"reveals={sampler.reveals} findings={len(st.findings)} seed={'-' if a.replay else a.seed} seconds={secs:.0f}")
    if ok and not a.keep:
        subprocess.run(["rm", "-rf", work])
    else:
        print(f"# storm files kept in {work}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
