"""A policy server for the hostile-protocol tests: the lowest legal column of each board
(6x7g4), misbehaving as its first argument says; its second is a folder where it writes
its process id (`pid`) and, in mode `stats`, its end-of-run file (`stats.txt`).

Modes: `plain` answers as asked; `surplus` writes one answer too many after its first
batch; `stats` writes `stats.txt` slowly once its input is closed; `venv` refuses to run
unless started as a virtual environment's interpreter (`.../venv/bin/python`), as written.
"""

import os
import sys
import time

mode, folder = sys.argv[1], sys.argv[2]
with open(os.path.join(folder, "pid"), "w") as f:
    f.write(str(os.getpid()))
if mode == "venv" and not sys.executable.endswith(os.path.join("venv", "bin", "python")):
    sys.stderr.write(f"not the environment's interpreter: {sys.executable}\n")
    sys.exit(3)
batches = 0
for header in sys.stdin:
    count = int(header.split()[1])
    # The top row comes first: its first empty cell is the lowest legal column.
    answers = [str(sys.stdin.readline().index(".")) for _ in range(count)]
    batches += 1
    if mode == "surplus" and batches == 1:
        answers.append(answers[-1])
    print("\n".join(answers), flush=True)
if mode == "stats":
    # The program's own end of run, after sweep closed its input: two writes apart.
    with open(os.path.join(folder, "stats.txt"), "w") as f:
        f.write(f"batches {batches}\n")
        f.flush()
        time.sleep(0.5)
        f.write("end\n")
