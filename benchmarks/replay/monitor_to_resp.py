#!/usr/bin/env python3
"""Turns a MONITOR trace into the RESP of the commands clients sent, for replaying.

Reads `redis-cli MONITOR` output on stdin and writes RESP on stdout: every command a
client sent, in order, except the commands scripts ran (replaying the script runs them),
blocking pops (nothing answers them in a replay), and the harness's own bookkeeping
(INFO, CONFIG, SLOWLOG, MONITOR). Scripts run as EVALSHA find their text because the
trace also holds the EVAL that loaded each one: Spring's script executor falls back to
EVAL when Redis answers NOSCRIPT.
"""
import re
import sys

LINE = re.compile(r'^\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$')
SKIPPED = {b'BZPOPMIN', b'BLPOP', b'BRPOP', b'BLMOVE', b'INFO', b'CONFIG', b'SLOWLOG', b'MONITOR', b'CLIENT',
           b'HELLO', b'QUIT', b'RESET'}
ESCAPES = {'n': b'\n', 'r': b'\r', 't': b'\t', 'a': b'\a', 'b': b'\b', '"': b'"', '\\': b'\\'}


def arguments(text):
    """The arguments of one MONITOR line: double-quoted, escaped as sdscatrepr does."""
    args, i = [], 0
    while i < len(text):
        if text[i] != '"':
            i += 1
            continue
        i += 1
        value = bytearray()
        while text[i] != '"':
            if text[i] == '\\':
                code = text[i + 1]
                if code == 'x':
                    value.append(int(text[i + 2:i + 4], 16))
                    i += 4
                    continue
                value += ESCAPES[code]
                i += 2
                continue
            value += text[i].encode('utf-8')
            i += 1
        args.append(bytes(value))
        i += 1
    return args


def main():
    out = sys.stdout.buffer
    for line in sys.stdin:
        match = LINE.match(line.rstrip('\n'))
        if not match or match.group(1) == 'lua':
            continue
        args = arguments(match.group(2))
        if not args or args[0].upper() in SKIPPED:
            continue
        out.write(b'*%d\r\n' % len(args))
        for arg in args:
            out.write(b'$%d\r\n%s\r\n' % (len(arg), arg))


if __name__ == '__main__':
    main()
