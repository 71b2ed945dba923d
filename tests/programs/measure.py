"""Runs a command as a child and writes its peak resident memory (ru_maxrss, KiB) to a file.

    python3 measure.py PEAK_FILE PROGRAM [ARG ...]

The child is forked from this small process, so its peak is its own: a process started
directly by a large one (a test binary holding big tables) inherits that one's peak at
exec. Exits with the child's code, or 128 + the signal that ended it.
"""

import os
import signal
import sys

peak_file, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    # Python ignores SIGPIPE, and an ignored signal stays ignored across exec.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.execvp(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
with open(peak_file, "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
