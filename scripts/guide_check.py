#!/usr/bin/env python3
"""Check the README and the guide against the tool, so that neither can go stale.

    python3 scripts/guide_check.py [--sweep PATH]

From the repository root, with a built `sweep` (default: $SWEEP, else target/release/sweep).
What it checks, in every Markdown file of the guide (docs/guide/src), README.md,
ARCHITECTURE.md, docs/performance.md, docs/performance-history.md and python/README.md:

- every relative link and image points at a file that exists, and a link's `#anchor` at a
  heading of its target (headings turned into ids as mdBook and GitHub do); in a file the
  book includes (`{{#include ...}}`), a relative link must also lead, with its anchor, to a
  page of the book from each page that includes it, or it would break inside the book;
- every TOML block is a spec `sweep plan` accepts: a block with `[[solver]]` as it stands
  (a `name` added when it has none), a block of tables without one on top of a one-solver
  spec; a block preceded by `<!-- guide-check: skip REASON -->` is left out, with its reason;
- every `sweep ...` command in a shell block or in a table row names a subcommand that
  exists and only flags its `--help` lists, and every `experiments/*.toml` or `scripts/...`
  path it names exists;
- a CSV header shown in a text block (a line that starts `job_id,solver,`) is the header
  `sweep run` writes today;
- ARCHITECTURE.md has at most 200 lines, and every path it names in inline code (`src/...`,
  `tests/...`, `scripts/...`, or a path below `src/` such as `run/fence.rs`) exists.

An include may name an anchor (`{{#include ../../performance.md:summary}}`): the book then
takes only the lines between `ANCHOR: summary` and `ANCHOR_END: summary`, and only the
links there are followed from the including page.

Prints one line per problem and exits 1 if there is any.
"""

import argparse
import functools
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide" / "src"
EXTRA = [
    "README.md",
    "ARCHITECTURE.md",
    "docs/performance.md",
    "docs/performance-history.md",
    "python/README.md",
]

LINK = re.compile(r"(!?)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
INCLUDE = re.compile(r"\{\{#include\s+([^}\s:]+)(?::([\w-]+))?\s*\}\}")
ARCHITECTURE_LINES = 200
FENCE = re.compile(r"^(\s*)```(\S*)")
SKIP = re.compile(r"<!--\s*guide-check:\s*skip\s+(.+?)\s*-->")

BASE_SPEC = """name = "guide-check"
seed = 1
replicates = 2

[[solver]]
kind = "q-learning"
alpha = [0.1, 0.2, 0.3]
"""


def slug(heading):
    """A heading's id: lower case, spaces to '-', only letters, digits, '-' and '_' kept."""
    text = re.sub(r"`", "", heading.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    out = []
    for ch in text:
        if ch.isalnum() or ch in "-_":
            out.append(ch.lower())
        elif ch.isspace():
            out.append("-")
    return "".join(out)


def blocks(text):
    """(info, first line number, lines, the line before the fence) of each fenced block."""
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, info, body = i, m.group(2), []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i])
            i += 1
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        found.append((info, start + 1, body, before))
        i += 1
    return found


def prose(text):
    """The text outside fenced blocks and inline code, line numbers kept."""
    out, inside = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            inside = not inside
            out.append("")
            continue
        out.append("" if inside else re.sub(r"`[^`]*`", "", line))
    return out


def anchored(text, anchor):
    """(first, last) line numbers, 1-based, of the lines between `ANCHOR: anchor` and
    `ANCHOR_END: anchor` (as mdBook takes them), or the whole text without an anchor."""
    lines = text.split("\n")
    if not anchor:
        return 1, len(lines)
    start = next((i for i, l in enumerate(lines) if re.search(rf"ANCHOR:\s*{anchor}\b", l)), None)
    if start is None:
        raise SystemExit(f"guide_check: no ANCHOR: {anchor}")
    end = next((i for i in range(start + 1, len(lines)) if re.search(rf"ANCHOR_END:\s*{anchor}\b", lines[i])), len(lines))
    return start + 2, end


@functools.cache
def resolved(path):
    """A file's text with its includes expanded (what the book renders)."""
    text = path.read_text()

    def include(m):
        inner = (path.parent / m.group(1)).resolve()
        if not m.group(2):
            return resolved(inner)
        first, last = anchored(inner.read_text(), m.group(2))
        body = inner.read_text().split("\n")[first - 1 : last]
        return "\n".join(l for l in body if "ANCHOR" not in l)

    return INCLUDE.sub(include, text)


@functools.cache
def anchors(path):
    """The ids of a Markdown file's headings (outside fenced blocks)."""
    ids, inside = set(), False
    for line in resolved(path).split("\n"):
        if FENCE.match(line):
            inside = not inside
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m and not inside:
            ids.add(slug(m.group(2)))
    return ids


def check_links(path, includers, problems):
    """`includers`: (page, anchor) of the guide pages that include `path`; its links are
    followed from each of them too, as the book renders them there (only those between
    the anchor's lines when the include names one)."""
    text = path.read_text()
    spans = {page: anchored(text, anchor) for page, anchor in includers}
    for n, line in enumerate(prose(text), 1):
        for m in LINK.finditer(line):
            target = m.group(2)
            if re.match(r"^[a-z]+:", target):
                continue
            where = f"{path.relative_to(ROOT)}:{n}"
            file, _, anchor = target.partition("#")
            pages = [p for p, (first, last) in spans.items() if first <= n <= last]
            for page in [path] + pages:
                seen = "" if page == path else f" (from {page.relative_to(ROOT)}, which includes it)"
                dest = (page.parent / file).resolve() if file else page
                if not dest.exists():
                    problems.append(f"{where}: {target}: no such file{seen}")
                    continue
                if page.is_relative_to(GUIDE) and not dest.is_relative_to(GUIDE):
                    problems.append(f"{where}: {target} leaves the book{seen}")
                if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    problems.append(f"{where}: {target}: no heading with id #{anchor}{seen}")


@functools.cache
def help_text(sweep, sub):
    args = [sweep] + ([sub] if sub else []) + ["--help"]
    r = subprocess.run(args, capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def check_command(sweep, words, where, problems):
    """`words`: a sweep command line's arguments after the program."""
    if not words:
        return
    top = help_text(sweep, "")
    sub = words[0]
    if sub.startswith("-"):
        sub, args = "", words
    elif sub.endswith(".toml") or sub in ("SPEC", "SPEC.toml"):
        sub, args = "run", words
    else:
        args = words[1:]
        if not re.search(rf"^\s+{re.escape(sub)}\b", top, re.M):
            problems.append(f"{where}: `sweep {sub}`: no such subcommand")
            return
    text = help_text(sweep, sub) if sub else top
    for word in args:
        flag = word.split("=", 1)[0]
        if re.fullmatch(r"--[a-z][a-z0-9-]*", flag) and not re.search(
            rf"(^|[\s,]){re.escape(flag)}\b", text, re.M
        ):
            problems.append(f"{where}: `sweep {sub or ''} {flag}`: not in its --help")
        for path in re.findall(r"(?:experiments|scripts)/[\w./-]+", word):
            if not (ROOT / path.rstrip(".,")).exists():
                problems.append(f"{where}: {path}: no such file")


def command_lines(body):
    """Shell lines joined at trailing backslashes, comments cut."""
    joined, cur = [], ""
    for line in body:
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        joined.append(cur + line)
        cur = ""
    if cur:
        joined.append(cur)
    out = []
    for line in joined:
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split("#", 1)[0].split()
        out.append(words)
    return out


def sweep_args(words):
    """The arguments of a `sweep` call in a shell line, or None."""
    for i, w in enumerate(words):
        if w in ("sweep", "target/release/sweep", "$SWEEP", "./target/release/sweep"):
            return words[i + 1 :]
        if w == "run" and words[i - 1 : i] == ["cargo"]:
            rest = words[i + 1 :]
            if "--" in rest:
                return rest[rest.index("--") + 1 :]
            return None
    return None


def check_spec(sweep, body, where, problems, tmp):
    text = "\n".join(body)
    if not re.search(r"^\[\[solver\]\]", text, re.M):
        if not re.search(r"^\[[a-z_]+\]", text, re.M):
            return
        text = BASE_SPEC + "\n" + text
    elif not re.search(r"^name\s*=", text, re.M):
        text = 'name = "guide-check"\n' + text
    spec = Path(tmp) / "spec.toml"
    spec.write_text(text + "\n")
    r = subprocess.run(
        [sweep, "plan", str(spec), "--out", str(Path(tmp) / "results")],
        capture_output=True,
        text=True,
        cwd=tmp,
    )
    if r.returncode != 0:
        err = (r.stderr or r.stdout).strip().splitlines()
        problems.append(f"{where}: `sweep plan` refuses this spec: {err[0] if err else r.returncode}")


def results_header(sweep, tmp):
    spec = ROOT / "experiments" / "smoke.toml"
    out = Path(tmp) / "smoke"
    r = subprocess.run(
        [sweep, "run", str(spec), "--quiet", "--out", str(out)], capture_output=True, text=True
    )
    if r.returncode != 0:
        raise SystemExit(f"guide_check: sweep run {spec} failed: {r.stderr}")
    return (out / "results.csv").read_text().split("\n", 1)[0]


def check_architecture(problems):
    """ARCHITECTURE.md stays short, and names only paths that exist."""
    path = ROOT / "ARCHITECTURE.md"
    text = path.read_text()
    count = len(text.rstrip("\n").split("\n"))
    if count > ARCHITECTURE_LINES:
        problems.append(f"ARCHITECTURE.md: {count} lines, more than {ARCHITECTURE_LINES}")
    for n, line in enumerate(text.split("\n"), 1):
        for code in re.findall(r"`([^`\s]+)`", line):
            if "/" not in code or not re.fullmatch(r"[\w.-]+(/[\w.-]+)*/?", code):
                continue
            if code.split("/")[0] in ("src", "tests", "scripts", "python", "benches", "docs", "examples"):
                candidates = [ROOT / code]
            else:
                candidates = [ROOT / "src" / code, ROOT / "src" / (code.rstrip("/") + ".rs")]
            if not any(c.exists() for c in candidates):
                problems.append(f"ARCHITECTURE.md:{n}: `{code}`: no such file or folder")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sweep", default=os.environ.get("SWEEP", str(ROOT / "target/release/sweep")))
    sweep = str(Path(ap.parse_args().sweep).resolve())
    if not Path(sweep).exists():
        raise SystemExit(f"guide_check: no sweep binary at {sweep} (cargo build --release)")
    files = sorted(GUIDE.glob("*.md")) + [ROOT / f for f in EXTRA]
    includers = {}
    for p in sorted(GUIDE.glob("*.md")):
        for m in INCLUDE.finditer(p.read_text()):
            includers.setdefault((p.parent / m.group(1)).resolve(), []).append((p, m.group(2)))
    problems, skipped, specs, commands = [], [], 0, 0
    check_architecture(problems)
    with tempfile.TemporaryDirectory() as tmp:
        header = results_header(sweep, tmp)
        for path in files:
            check_links(path, includers.get(path.resolve(), []), problems)
            text = path.read_text()
            rel = path.relative_to(ROOT)
            for info, line, body, before in blocks(text):
                where = f"{rel}:{line}"
                skip = SKIP.search(before)
                lang = info.split(",")[0]
                if skip:
                    skipped.append(f"{where}: {skip.group(1)}")
                    continue
                if lang == "toml":
                    specs += 1
                    check_spec(sweep, body, where, problems, tmp)
                elif lang in ("sh", "bash", "console"):
                    for words in command_lines(body):
                        args = sweep_args(words)
                        if args is not None:
                            commands += 1
                            check_command(sweep, args, where, problems)
                elif lang == "":
                    for k, row in enumerate(body):
                        if row.startswith("job_id,solver,") and row != header:
                            problems.append(
                                f"{rel}:{line + 1 + k}: a results.csv header that is not today's: "
                                f"{sorted(set(header.split(',')) ^ set(row.split(',')))} differ"
                            )
            # commands written in prose and tables: `sweep SUB ...` in inline code
            for n, raw in enumerate(text.split("\n"), 1):
                if raw.lstrip().startswith("```"):
                    continue
                for code in re.findall(r"`(sweep [^`]+)`", raw):
                    words = code.replace("\\|", "|").split()[1:]
                    if words and not words[0].startswith(("-", "[")) and words[0].islower():
                        commands += 1
                        check_command(sweep, words, f"{rel}:{n}", problems)
    for p in problems:
        print(p)
    for s in skipped:
        print(f"skipped {s}")
    print(
        f"guide_check: {len(files)} files, {specs} specs through sweep plan, "
        f"{commands} sweep commands checked against --help; {len(problems)} problems"
    )
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
