"""answer_leak.py BEFORE ANSWER - does the screen BEFORE a question's reveal
state the answer revealed after it?  Prints the forms found and exits 1 when
it does, 0 when it does not.

ANSWER is the text after "answer: " ("0.5", "32.2%", "Cat (38.2%)",
"1.583 bits"). A count (a whole number: tokens, keys, d_k) is read from the
screen's shape by design and is not checked. The forms looked for are the
ones the interface and the lessons write numbers in: "32.2%", "32%",
"0.50", "0.5000". Left out of the screen: the choices offered (the answer is
one of them by design), the colour legend ("0 5 25 50 100%") and the status
and cost lines.
"""
import re
import sys

before = open(sys.argv[1], encoding="utf-8").read().splitlines()
answer = sys.argv[2]
keep = [l for l in before
        if not re.search(r"\([a-z]\) ", l)
        and not re.search(r"0 +5 +25 +50 +100%", l)
        and not l.startswith("Cost:") and not l.startswith(" tokens ")]
text = "\n".join(keep)
m = re.search(r"(-?\d+(?:\.\d+)?(?:e-?\d+)?)(%| bits)?\)?\s*$",
              answer.split("(no prediction)")[0].strip())
if not m:
    sys.exit(0)
num, unit = m.group(1), m.group(2)
v = float(num)
if unit is None and "." not in num:
    sys.exit(0)
if unit == "%":
    forms = {f"{v:.1f}%", f"{v:.0f}%"}
else:
    forms = {f"{v:.2f}", f"{v:.4f}", num}
found = [f for f in forms if re.search(r"(?<![\d.])" + re.escape(f) + r"(?![\d])", text)]
if found:
    print(" ".join(sorted(found)))
    sys.exit(1)
