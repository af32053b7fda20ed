"""stormgen.py - the storm soak's key stream (tests/soak/storm.py): an endless,
seeded stream of actions, each with the gap to wait before it. Nothing here
looks at the program; the same seed gives the same stream.

An action is a line `GAP_MS KIND ARGS...`:
  key NAME...      tmux key names, sent in one send-keys (several keys in one
                   write when there are several)
  text|ctrl|bad|esc|mouse|paste|burst HEX...
                   bytes, sent with `send-keys -H`: typed text, control bytes,
                   invalid UTF-8, unknown/Alt escape sequences, mouse reports,
                   a pasted page, several command keys in one write
  resize W H       resize-window
  probe            (written by storm.py, not here) a check that the program
                   answers: Esc until browsing, F1 opens the help, F1 closes it

The gaps come in runs of 20-200 actions of one pace: 0 ms (keys that arrive
together), 0-1 ms, 2-30 ms, 30-150 ms, with now and then a pause of up to
1.5 s (a user reading). Three actions in five are lessons' (the list, a lesson,
pages turned both ways, answers typed, picked and revealed, the text
scrolled, left with Esc and opened again) with the combining views (A, O, V),
the heads table, the pipeline and trace, views, settings, edits, mouse
reports, pastes and resizes in between, and it quits now and then (q, F10,
Ctrl-C, Q in the training view): storm.py starts the program again after an
exit with status 0, as a user would.
"""
import random

# Every key of src/ui/input.c's table as tmux names it, both modes, but the
# quit keys (sent by quit() alone).
KEYS = ("F1 C-g F2 Tab BTab Up Down PPage NPage F9 C-k C-p C-t F3 F4 F5 F6 F7 F8 C-n C-o C-x "
        "? Enter KPEnter e i v k j Home End Left Right 1 2 3 4 5 6 7 8 9 m c p s h H d D r R l "
        "n N x X G P [ ] w F11 I t T L < > C E b B a z + = Z - 0 C-a C-e C-Left M-b C-Right "
        "M-f BSpace DC C-h C-d C-w C-u C-l Space Insert F12 S-Up S-Down C-Up M-x S A O V M g "
        "o f F { } Escape").split()
# What a lesson page takes (src/ui/views/view_lesson.c, src/app/lesson.c): pages
# (PgDn/PgUp, n/p, Enter once revealed), answers (a-d, digits, '.', '-',
# arrows, BkSp), the reveal (Enter), the text scrolled ({ }, S-Up/S-Down).
LESSON_KEYS = ("NPage NPage NPage PPage n n p Enter Enter Enter Left Right Up Down BSpace "
               "a b c d { } S-Up S-Down").split()
# What changes the result under a lesson page: the combining views, the heads
# table, the pipeline, trace and PE views, layers, heads, settings.
UNDER_LESSON = ("A A O O V V f F S w v Tab BTab 1 2 3 h H l L < > m t T s P [ ] M j k Home End "
                "x C-x r R D d F9 C-n N g z Z 0").split()
QUITS = ("q", "F10", "C-c")
WORDS = ("the cat sat on mat because it was tired trophy did not fit in suitcase too big "
         "attention head token key value softmax layer model weights river bank money "
         "she he they lorem ipsum dolor don't U.S.A. e-mail 3.14 1,000 (a) [b] {c}").split()
UTF8 = ("c3 a9", "c3 b1", "e4 b8 ad e6 96 87", "f0 9f 98 80", "65 cc 81", "d7 a9 d7 9c",
        "f0 9f 91 a9 e2 80 8d f0 9f 92 bb", "ef bc a1", "ef bf bd", "c2 a0", "c2 85",
        "e2 80 8b", "e0 a4 b9 e0 a4 bf")
BAD = ("ff", "fe", "ff fe", "c3 28", "c3", "80", "bf", "e2 82", "e2 28 a1", "f0 90 80",
       "c0 af", "e0 80 af", "ed a0 80", "f4 90 80 80", "f8 88 80 80 80", "e9")
ESCS = ("1b 62", "1b 66", "1b 78", "1b 31", "1b 5b 39 39 7e", "1b 5b 32 30 30 7e",
        "1b 5b 32 30 31 7e", "1b 5b 31 3b 35 43", "1b 5b 31 3b 33 44", "1b 4f 50", "1b 5b",
        "1b 4f", "1b 5d 30 3b 78 07", "1b 1b 62", "1b 5b 4d 20 21 21", "1b 5b 49", "1b 5b 4f")
# Control bytes: all but ESC (Escape is a key of its own) and ^C (a quit).
CTRLS = [b for b in range(32) if b not in (0x1b, 0x03)] + [0x7f]
CHARS = "abcdefghijklmnoprstuvwxyzABCDEFGHIJKLMNOPRSTUVWXYZ0123456789 .,;:!?-_()[]{}<>/\\|@#$%^&*+="
BURST = "hHdDlL<>nNMAOVSwvbBjkfF0123456789+-zZtTrRpPscmIg[]aCEo{}"
PACES = ((0.25, 0.0, 0.0), (0.35, 0.0, 1.0), (0.30, 2.0, 30.0), (0.10, 30.0, 150.0))


def hexs(data):
    return " ".join(f"{b:02x}" for b in data)


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.w, self.h = 120, 40
        self.pace_left = 0
        self.pace = (0.0, 1.0)

    def gap(self):
        r = self.r
        if self.pace_left <= 0:
            x, acc = r.random(), 0.0
            for p, lo, hi in PACES:
                acc += p
                if x < acc:
                    break
            self.pace, self.pace_left = (lo, hi), r.randint(20, 200)
        self.pace_left -= 1
        if r.random() < 0.01:
            return round(r.uniform(300, 1500), 2)
        lo, hi = self.pace
        return 0.0 if hi == 0 else round(r.uniform(lo, hi), 2)

    def text(self, n):
        r, out = self.r, []
        for _ in range(n):
            x = r.random()
            if x < 0.5:
                out.append(hexs((r.choice(WORDS) + " ").encode()))
            elif x < 0.8:
                out.append(hexs(r.choice(CHARS).encode()))
            else:
                out.append(r.choice(UTF8))
        return "text " + " ".join(out)

    def mouse(self):
        r = self.r
        x = r.choice((1, 1000)) if r.random() < 0.1 else r.randint(1, self.w + 2)
        y = r.choice((1, 500)) if r.random() < 0.1 else r.randint(1, self.h + 2)
        k = r.randrange(20)
        if k < 9:
            s = f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"
        elif k < 15:
            s = f"\x1b[<{64 + k % 2};{x};{y}M"
        elif k < 17:
            b = 1 + k % 2
            s = f"\x1b[<{b};{x};{y}M\x1b[<{b};{x};{y}m"
        elif k < 19:
            s = f"\x1b[<32;{x};{y}M\x1b[<35;{x};{y}M"
        else:
            s = f"\x1b[<{4 + 12 * (k % 2)};{x};{y}M"
        return "mouse " + hexs(s.encode())

    def resize(self):
        r = self.r
        k = r.randrange(14)
        if k == 0:
            self.w, self.h = 1, 1
        elif k == 1:
            self.w, self.h = 200, 60
        elif k == 2:
            self.w, self.h = 59, 17
        elif k == 3:
            self.w, self.h = r.randint(1, 10), r.randint(1, 6)
        elif k == 4:
            self.w, self.h = 1, r.randint(1, 60)
        elif k < 9:
            self.w, self.h = r.choice(((120, 40), (100, 30), (80, 24), (120, 60)))
        else:
            self.w, self.h = r.randint(1, 200), r.randint(1, 60)
        return f"resize {self.w} {self.h}"

    def big_enough(self):
        if self.w < 100 or self.h < 24:
            self.w, self.h = self.r.choice(((120, 40), (100, 30), (120, 60)))
            return [f"resize {self.w} {self.h}"]
        return []

    def paste(self):
        r, out = self.r, []
        n = r.randint(200, 2000)
        while n > 0:
            line = " ".join(r.choice(WORDS) for _ in range(r.randint(3, 14)))
            line += "\r\n" if r.random() < 0.2 else "\n"
            out.append(line)
            n -= len(line)
        return "paste " + hexs("".join(out).encode())

    def burst(self, keys=BURST):
        r = self.r
        s = ""
        for _ in range(r.randint(2, 8)):
            k = r.randrange(14)
            s += ("\x1b[A", "\x1b[B", "\x1b[H", "\x1b[F", "\r")[k] if k < 5 else r.choice(keys)
        return "burst " + hexs(s.encode())

    def lesson(self):
        """The list, a lesson, its pages and answers with the result changed
        under it, left and opened again."""
        r = self.r
        out = self.big_enough()
        if r.random() < 0.8:  # out of the editor, where o types an o
            out.append("key Escape")
        out.append("key o")
        out += ["key Down"] * r.randrange(15)
        out.append("key Enter")
        for _ in range(r.randint(4, 30)):
            k = r.randrange(20)
            if k < 7:
                out.append("key " + r.choice(LESSON_KEYS))
            elif k < 9:  # a number typed, often then revealed
                num = r.choice(("0.74", "0.5", "1", "-0.2", "2", "0.38", "3"))
                out.append("text " + hexs(num.encode()) + (" 0d" if r.random() < 0.5 else ""))
            elif k < 14:
                out.append("key " + r.choice(UNDER_LESSON))
            elif k < 16:  # a view and the reveal in one write
                out.append("burst " + hexs((r.choice("AOVfSwv") + r.choice(("\r", "a\r", "1\r", "\x1b[C\r"))).encode()))
            elif k == 16:
                out.append(self.burst(BURST + "np{}abcd.-"))
            elif k == 17:
                out.append(self.mouse())
            elif k == 18:
                out.append("key Escape")  # left (or a view closed); the next keys browse
                if r.random() < 0.6:
                    out += ["key o", "key " + r.choice(("Enter", "Down", "Up")), "key Enter"]
            else:
                out.append(self.resize())
        out.append("key Escape")
        if r.random() < 0.5:
            out += ["key o", "key Enter", "key NPage"] + ["key Escape"]
        return out

    def edit(self):
        r = self.r
        out = self.big_enough() + ["key " + r.choice(("e", "i", "Enter"))]
        for _ in range(r.randint(1, 4)):
            out.append(self.text(r.randint(1, 4)) + " 20 71 75")  # " qu": q types while editing
            out.append("key " + r.choice(("F9", "C-k", "C-p", "F3", "F4", "F5", "F6", "C-n",
                                          "Tab", "Up", "Down", "F1", "C-u", "C-w", "BSpace")))
        out.append("key " + r.choice(("Escape", "Enter")))
        return out

    def train(self):
        r = self.r
        out = self.big_enough() + ["key W"]
        for _ in range(r.randint(2, 10)):
            out.append(r.choice(("key Space", "text 2b", "text 2d", "text 2e", "key r",
                                 "key " + r.choice(KEYS), self.resize(), self.mouse())))
        out.append("key " + r.choice(("Escape", "Escape", "Escape", "Q")))
        return out

    def actions(self):
        """Endless: one action after another, without gaps."""
        r = self.r
        while True:
            x = r.randrange(1000)
            if x < 330:
                yield "key " + r.choice(KEYS)
            elif x < 400:
                yield "key " + r.choice(LESSON_KEYS + UNDER_LESSON)
            elif x < 500:
                yield self.text(r.randint(1, 4))
            elif x < 530:
                yield "ctrl " + hexs(bytes([r.choice(CTRLS)]))
            elif x < 555:
                yield "bad " + r.choice(BAD)
            elif x < 575:
                yield "esc " + r.choice(ESCS)
            elif x < 700:
                yield self.mouse()
            elif x < 740:
                yield self.resize()
            elif x < 744:
                yield self.paste()
            elif x < 800:
                yield self.burst()
            elif x < 850:
                yield from self.lesson()
            elif x < 862:
                yield from self.edit()
            elif x < 866:
                yield from self.train()
            elif x < 869:
                yield "key " + r.choice(QUITS)
            else:  # a key held down (auto-repeat), in one write
                yield "key " + " ".join([r.choice(KEYS)] * r.randint(2, 9))

    def stream(self):
        """Endless lines 'GAP_MS ACTION'."""
        for a in self.actions():
            yield f"{self.gap():g} {a}"
