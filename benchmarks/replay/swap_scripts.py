#!/usr/bin/env python3
"""Puts another build's scripts into a replay, so that two builds run the same commands.

    swap_scripts.py <trace.resp> <other build's MONITOR trace> <other build's script folder> > swapped.resp

A recorded run depends on its timing (how many jobs each call takes), so two recordings differ
by a percent or two; two scripts replayed with the same calls do not. Reads the EVAL bodies of
the other build from its trace (any run that calls the same scripts), names each body by the
script file whose first lines it holds, and writes the replay with each call of the first build
made to the other build's script of the same name (EVAL bodies and EVALSHA digests replaced).
The scripts' keys and arguments must be the same in both builds.
"""
import hashlib
import os
import sys

from monitor_to_resp import LINE, arguments


def commands_of_resp(data):
    """The commands of a RESP stream of arrays of bulk strings."""
    i = 0
    while i < len(data):
        end = data.index(b'\r\n', i)
        count = int(data[i + 1:end])
        i = end + 2
        args = []
        for _ in range(count):
            end = data.index(b'\r\n', i)
            length = int(data[i + 1:end])
            args.append(data[end + 2:end + 2 + length])
            i = end + 4 + length
        yield args


def resp(args):
    return b'*%d\r\n' % len(args) + b''.join(b'$%d\r\n%s\r\n' % (len(arg), arg) for arg in args)


def bodies_of_monitor(path):
    """The EVAL bodies of a MONITOR trace."""
    bodies = set()
    with open(path, encoding='utf-8', errors='surrogateescape') as trace:
        for line in trace:
            if '"EVAL" "' in line[:80] or '"eval" "' in line[:80]:
                match = LINE.match(line.rstrip('\n'))
                if match and match.group(1) != 'lua':
                    bodies.add(arguments(match.group(2))[1])
    return bodies


def names(folder, bodies):
    """Body by script name: the file whose first three lines the body holds."""
    heads = {}
    for file in sorted(os.listdir(folder)):
        if file.endswith('.lua') and file != 'common.lua':
            with open(os.path.join(folder, file), 'rb') as script:
                heads[file] = b''.join(script.readlines()[:3])
    named = {}
    for body in bodies:
        found = [file for file, head in heads.items() if head in body]
        if len(found) == 1:
            named[found[0]] = body
    return named, heads


def main():
    replay, other_trace, other_folder = sys.argv[1:4]
    data = open(replay, 'rb').read()
    others, heads = names(other_folder, bodies_of_monitor(other_trace))
    # the first build's bodies, named by the same first lines
    sha_to_name = {}
    for args in commands_of_resp(data):
        if args[0].upper() == b'EVAL':
            found = [file for file, head in heads.items() if head in args[1]]
            if len(found) == 1:
                sha_to_name[hashlib.sha1(args[1]).hexdigest().encode()] = found[0]
    out = sys.stdout.buffer
    for args in commands_of_resp(data):
        command = args[0].upper()
        if command == b'EVAL':
            sha = hashlib.sha1(args[1]).hexdigest().encode()
            if sha in sha_to_name and sha_to_name[sha] in others:
                args = [args[0], others[sha_to_name[sha]]] + args[2:]
        elif command == b'EVALSHA':
            name = sha_to_name.get(args[1].lower())
            if name in others:
                args = [args[0], hashlib.sha1(others[name]).hexdigest().encode()] + args[2:]
        out.write(resp(args))
    missing = sorted(set(sha_to_name.values()) - set(others))
    if missing:
        print('not in the other trace, left as they were: ' + ', '.join(missing), file=sys.stderr)


if __name__ == '__main__':
    main()
