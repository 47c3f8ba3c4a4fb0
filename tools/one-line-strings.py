#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""one-line-strings.py FILE...: user-visible strings split across lines.

House style (kernel, systemd): a message is one string literal on one line,
so that grep finds it.  This finds the string literals that adjacent-literal
concatenation continues on a later line ("Failed to " NEWLINE "open %s")
inside a call that prints or records a message: the printf family, puts,
mt_error_set, the cli_* printers, and any function whose name says error,
fail, die, warn, log, debug, notice, msg or say; and the value of a #define.
Macros between the pieces (PRIu64, REEXEC_ENV) count as part of the string.

Allowed: one literal with "\\n" inside it, however long (a usage text), and
a help screen written one literal per line: a piece that follows a piece
ending in "\\n" starts a line of its own, so grep finds each line whole.

Prints FILE:LINE: CALL: "...", and exits 1 if anything was found.  With
--all, every such continuation counts, in any call or none (to review).
"""
import re
import sys

MESSAGE_CALL = re.compile(
    r'^(v?s?n?printf|v?as?printf|v?dprintf|v?fprintf|f?puts|mt_error_set|cli_\w+'
    r'|\w*(error|err|fail|die|warn|log|debug|notice|msg|say)\w*)$', re.I)
ALL = False
MACRO = re.compile(r'^(PRI[diouxX]\w*|SCN\w+|[A-Z][A-Z0-9_]*)$')


def tokens(text):
    """(kind, value, start_line, end_line): str, ident, punct; comments dropped."""
    i, n, line = 0, len(text), 1
    tok = re.compile(r'[A-Za-z_]\w*|\d[\w.]*|.', re.S)
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            i += 1
        elif c in ' \t\r\f\v' or (c == '\\' and text.startswith('\\\n', i)):
            if c == '\\':
                line += 1
                i += 2
            else:
                i += 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            line += text.count('\n', i, j)
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            value = text[i:j + 1]
            # a prefix (L, u8) was emitted as an ident just before: harmless
            yield ('str' if c == '"' else 'char', value, line, line)
            i = j + 1
        else:
            m = tok.match(text, i)
            v = m.group(0)
            yield ('ident' if re.match(r'[A-Za-z_]', v) else 'punct', v, line, line)
            i = m.end()


def check(path):
    text = open(path, encoding='utf-8', errors='replace').read()
    found = []
    stack = []  # the name before each open '(' (or None)
    last = []  # the last three tokens before the current one
    run = None  # the string run being read: [last piece, its line, its context]
    for kind, value, line, _ in tokens(text):
        if kind == 'str' or (kind == 'ident' and run and MACRO.match(value)):
            if kind == 'str' and run and line > run[1] and not run[0].endswith('\\n"'):
                ctx = run[2]
                if ALL or (ctx and MESSAGE_CALL.match(ctx)) or (ctx or '').startswith('#define'):
                    found.append(f'{path}:{line}: {ctx or "(none)"}: {value[:60]}')
            if kind == 'str' and run:
                run[0], run[1] = value, line
            elif kind == 'str':
                # the innermost call, or the macro this string is the value of
                if len(last) == 3 and last[0] == '#' and last[1] == 'define':
                    ctx = '#define ' + last[2]
                else:
                    ctx = stack[-1] if stack else None
                run = [value, line, ctx]
        else:
            run = None
            if value == '(':
                stack.append(last[-1] if last and re.match(r'[A-Za-z_]\w*$', last[-1]) else None)
            elif value == ')' and stack:
                stack.pop()
        last = (last + [value])[-3:]
    return found


def main(argv):
    global ALL
    if len(argv) > 1 and argv[1] == '--all':
        ALL = True
        argv = argv[1:]
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    found = []
    for p in argv[1:]:
        found += check(p)
    for f in found:
        print(f)
    if found:
        print(f'{len(found)} user-visible strings continued on a later line; '
              'join each into one literal (clang-format keeps it whole)', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
