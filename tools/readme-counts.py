#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""readme-counts.py [REPO]: the counts the README and docs/*.md state, against the tree.

The claims live where the text about them lives (README.md, or a page of
docs/, such as docs/runtimes.md for the patch series and docs/HACKING.md
for the test builds and the verbs); all of them are read as one text.

Each claim is found by its wording; a claim the README no longer makes
fails too, so that rewording it means updating this check.

- Patch series: every "N [small] patches (L lines, ...: `DIR/`)" names
  the series folder DIR; N must be the number of DIR/*.patch and L their
  lines (wc -l).  runc has one series per runc version
  (contrib/runc/1.1/patches/, contrib/runc/1.3/patches/, ...): each claim
  is checked against its own folder, and a series the README states no
  count for is listed as a note.
- Builds: "built and run N times" is the number of run_ctest stages in
  tests/run-all.sh.
- Verbs: "N verbs, one file per verb (a.c b.c ...)" is memfd-noexec's verb
  table (memfd-noexec/memfd-noexec.c, verbs[]): its size, and the file of
  each verb, VERB.c, which must exist.

Numbers may be digits or words (one to twenty).  Exits 1 on a mismatch,
printing each.
"""
import glob
import os
import re
import sys

WORDS = ('zero one two three four five six seven eight nine ten eleven twelve thirteen '
         'fourteen fifteen sixteen seventeen eighteen nineteen twenty').split()


def number(text):
    text = text.lower()
    if text.isdigit():
        return int(text)
    return WORDS.index(text) if text in WORDS else None


def lines_of(paths):
    total = 0
    for p in paths:
        with open(p, 'rb') as f:
            total += f.read().count(b'\n')
    return total


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    texts = []
    for path in [os.path.join(repo, 'README.md')] + sorted(glob.glob(os.path.join(repo, 'docs', '*.md'))):
        with open(path, encoding='utf-8') as f:
            texts.append(f.read())
    # One line, single spaces: a claim may wrap anywhere.
    readme = ' '.join(' '.join(texts).split())
    errors, notes = [], []

    claimed = set()
    for m in re.finditer(r'(\w+) (?:small )?patches \((\d+) lines[^)`]*`([^`]+?)/?`\)', readme):
        n, lines, folder = number(m.group(1)), int(m.group(2)), m.group(3)
        patches = sorted(glob.glob(os.path.join(repo, folder, '*.patch')))
        claimed.add(os.path.normpath(folder))
        if not patches:
            errors.append(f'README: "{m.group(0)}": {folder} has no *.patch')
            continue
        if n != len(patches):
            errors.append(f'README: "{m.group(0)}": {folder} has {len(patches)} patches')
        if lines != lines_of(patches):
            errors.append(f'README: "{m.group(0)}": {folder}/*.patch have {lines_of(patches)} lines')
    if not claimed:
        errors.append('README: no "N patches (L lines, ...: `DIR/`)" claim found')
    for folder in sorted(glob.glob(os.path.join(repo, 'contrib/runc/*/patches'))):
        rel = os.path.normpath(os.path.relpath(folder, repo))
        if rel not in claimed and glob.glob(os.path.join(folder, '*.patch')):
            notes.append(f'note: README states no patch count for {rel}/')

    with open(os.path.join(repo, 'tests/run-all.sh'), encoding='utf-8') as f:
        stages = len(re.findall(r'^(?:\w+=\S+ )*run_ctest \S', f.read(), re.M))
    m = re.search(r'built and run (\w+) times', readme)
    if not m:
        errors.append('README: no "built and run N times" claim found')
    elif number(m.group(1)) != stages:
        errors.append(f'README: "{m.group(0)}": tests/run-all.sh runs ctest on {stages} builds')

    with open(os.path.join(repo, 'memfd-noexec/memfd-noexec.c'), encoding='utf-8') as f:
        source = f.read()
    table = source[source.index('verbs[] = {'):]
    table = table[:table.index('\n};')]
    verbs = re.findall(r'^\t\{"([a-z-]+)", ', table, re.M)
    m = re.search(r'(\w+) verbs, one file per verb \(([^)]*)\)', readme)
    if not verbs:
        errors.append('memfd-noexec/memfd-noexec.c: no row found in verbs[]')
    if not m:
        errors.append('README: no "N verbs, one file per verb (...)" claim found')
    else:
        files = m.group(2).split()
        if number(m.group(1)) != len(verbs):
            errors.append(f'README: "{m.group(1)} verbs": verbs[] has {len(verbs)} ({" ".join(verbs)})')
        if sorted(files) != sorted(v + '.c' for v in verbs):
            errors.append(f'README: the verb files "{m.group(2)}" are not those of verbs[] ({" ".join(verbs)})')
        for v in verbs:
            if not os.path.exists(os.path.join(repo, 'memfd-noexec', v + '.c')):
                errors.append(f'memfd-noexec/{v}.c: verb {v} has no file of its name')

    for line in notes + errors:
        print(line)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
