#!/usr/bin/env python3
"""Fails on an include cycle among the compilation units of a source folder.

A unit is foo.h and foo.cpp together (a .cpp includes its own header, so
two units whose files include each other's are a loop even when no header
includes itself). Only the folder's local includes ("Name.h") count.

  usage: check-include-cycles.py ROOT...   (every folder under each ROOT;
                                           prints each folder's graph)
"""
import os
import re
import sys


def unit_graph(folder):
    files = [f for f in os.listdir(folder) if f.endswith((".h", ".cpp"))]
    stem = lambda f: f.rsplit(".", 1)[0]
    graph = {stem(f): set() for f in files}
    for f in files:
        with open(os.path.join(folder, f)) as src:
            for inc in re.findall(r'^#include "([^"/]+)"', src.read(), re.M):
                if inc in files and stem(inc) != stem(f):
                    graph[stem(f)].add(stem(inc))
    return graph


def cycles(graph):
    state, found = {}, []

    def visit(u, path):
        state[u] = 1
        path.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                found.append(path[path.index(v):] + [v])
            elif not state.get(v):
                visit(v, path)
        path.pop()
        state[u] = 2

    for u in sorted(graph):
        if not state.get(u):
            visit(u, [])
    return found


def main(roots):
    folders = sorted(d for root in roots for d, _, fs in os.walk(root)
                     if any(f.endswith((".h", ".cpp")) for f in fs))
    status = 0
    for folder in folders:
        graph = unit_graph(folder)
        print(f"{folder}: {len(graph)} units")
        for u in sorted(graph):
            print(f"  {u} -> {', '.join(sorted(graph[u])) or '-'}")
        for c in cycles(graph):
            print(f"error: include cycle in {folder}: {' -> '.join(c)}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
