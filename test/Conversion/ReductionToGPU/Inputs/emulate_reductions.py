#!/usr/bin/env python3
"""Runs fuser-reduction-to-gpu's kernels on the CPU, for lit without a GPU.

Reads the generic form (--mlir-print-op-generic) of
`fuser-opt --fuser-reduction-to-gpu -canonicalize -cse` on stdin: static
host code (allocs, pointers, gpu.launch_func) and the kernels, a small
subset of arith, scf, llvm, memref and gpu ops. The threads of a block run
in lockstep, one top-level op at a time for all of them (the kernels'
barriers and shuffles are top-level ops); gpu.shuffle reads the other
lanes' operands. A kernel with cluster dims (nvvm.cluster_dim) runs the
blocks of each cluster in lockstep together, nvvm.mapa mapping a block's
shared buffer to the same buffer of another block. f32/f64 values are
Python floats, so inputs of small integers make every sum exact.

Usage: ... | emulate_reductions.py CASES.py
CASES.py holds a dict {function: lambda rng: (inputs, expected outputs)}
of flat lists (a third item: how often each element of the first input is
loaded, where not once). For each function it prints `<name> OK` when two runs give
the expected values and every element of the first input was loaded
exactly once, else `<name> MISMATCH ...` or an assertion."""
import math
import random
import re
import struct
import sys
from collections import Counter

LINE = re.compile(r'^\s*(?:(?P<res>%[\w]+)(?::(?P<n>\d+))?\s*=\s*)?"(?P<op>[\w.]+)"\((?P<args>[^)]*)\)(?P<rest>.*)$')


def parse(lines, i=0):
    """Returns (ops, i) for a region body until '})' or '}, {'."""
    ops = []
    while i < len(lines):
        l = lines[i].strip()
        if l.startswith('})') or l.startswith('}, {') or l == '}':
            return ops, i
        if l.startswith('^bb'):
            args = re.findall(r'(%[\w]+):', l)
            ops.append(('block', args))
            i += 1
            continue
        m = LINE.match(lines[i])
        if not m:
            i += 1
            continue
        op = dict(res=m['res'], n=int(m['n'] or 1), op=m['op'],
                  args=[a.strip() for a in m['args'].split(',') if a.strip()],
                  rest=m['rest'], regions=[])
        i += 1
        if m['rest'].rstrip().endswith('({'):
            while True:
                body, i = parse(lines, i)
                op['regions'].append(body)
                l = lines[i].strip()
                if l.startswith('}, {'):
                    i += 1
                    if l.endswith('})') or '}) :' in l:
                        op['regions'].append([])
                        op['tail'] = l
                        break
                    continue
                op['tail'] = l
                i += 1
                break
        ops.append(op)
    return ops, i


def attr(op, name):
    m = re.search(name + r' = ([^,}>]+)', op['rest'])
    return m.group(1).strip() if m else None


def width(op):
    m = re.search(r'-> (?:vector<\d+x)?i(\d+)>?\s*$', op['rest'])
    return int(m.group(1)) if m else 64


def width_in(op):
    m = re.search(r': \(i(\d+)', op['rest'])
    return int(m.group(1))


def signed(x, w):
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def const_value(op):
    v = attr(op, 'value')
    v = v.split(':')[0].strip()
    if v in ('true',):
        return 1
    if v in ('false',):
        return 0
    if v.startswith('0x'):
        bits = int(v, 16)
        if len(v) == 10:
            return struct.unpack('<f', struct.pack('<I', bits))[0]
        return struct.unpack('<d', struct.pack('<Q', bits))[0]
    return float(v) if ('.' in v or 'e' in v or 'inf' in v or 'nan' in v) else int(v)


def divide(x, y):
    """x / y with IEEE division by zero."""
    if y != 0 or math.isnan(y):
        return x / y
    if x == 0 or math.isnan(x):
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


class Ptr:
    def __init__(self, buf, off):
        self.buf, self.off = buf, off


def result_types(op):
    t = op.get('tail', op['rest'])
    m = re.search(r'-> \(?([^)]*)\)?\s*$', t)
    return m.group(1) if m else ''


class Machine:
    def __init__(self, module_text):
        lines = module_text.splitlines()
        self.funcs = {}
        self.kernels = {}
        self.clusters = {}
        for i, l in enumerate(lines):
            if '"gpu.func"' in l:
                body, j = parse(lines, i + 1)
                name = re.search(r'sym_name = "(\w+)"', lines[j]).group(1)
                self.kernels[name] = body
                dims = re.search(r'nvvm.cluster_dim = array<i32: (\d+), 1, 1>', lines[j])
                self.clusters[name] = int(dims.group(1)) if dims else 1
            elif '"func.func"' in l:
                body, j = parse(lines, i + 1)
                name = re.search(r'sym_name = "(\w+)"', lines[j] + l).group(1)
                self.funcs[name] = body

    # Scalar semantics.
    def scalar(self, op, v):
        a = [self.get(v, x) for x in op['args']]
        o = op['op']
        M = (1 << 64) - 1
        if o == 'arith.constant':
            return const_value(op)
        if o == 'memref.extract_aligned_pointer_as_index':
            return Ptr(a[0], 0)  # a workgroup buffer
        if o in ('arith.index_castui', 'arith.index_cast', 'llvm.inttoptr'):
            return a[0]
        if o == 'arith.addi': return a[0] + a[1]
        if o == 'arith.subi': return a[0] - a[1]
        if o == 'arith.muli': return a[0] * a[1]
        U = lambda x: x & M if isinstance(x, int) else x
        if o == 'arith.divui': return U(a[0]) // U(a[1])
        if o == 'arith.remui': return U(a[0]) % U(a[1])
        if o == 'arith.ceildivui': return -(-U(a[0]) // U(a[1]))
        if o == 'arith.minui': return min(U(a[0]), U(a[1]))
        if o == 'arith.maxui': return max(U(a[0]), U(a[1]))
        if o == 'arith.maxsi': return max(a)
        if o == 'arith.minsi': return min(a)
        if o == 'arith.bitcast':
            src, dst = re.search(r': \((\w+)\) -> (\w+)', op['rest']).groups()
            f = {'f64': 'd', 'i64': 'q', 'f32': 'f', 'i32': 'i'}
            x = a[0]
            if src.startswith('i'):
                x = signed(x, int(src[1:]))
            return struct.unpack('<' + f[dst], struct.pack('<' + f[src], x))[0]
        w = width(op)
        if o == 'arith.trunci':  # a scalar or a vector (masks loaded as bytes)
            return [signed(x, w) for x in a[0]] if isinstance(a[0], list) else signed(a[0], w)
        if o == 'arith.extui': return a[0] & ((1 << width_in(op)) - 1)
        if o == 'arith.extsi': return a[0]
        if o == 'arith.shli': return signed(a[0] << a[1], w)
        if o == 'arith.shrui': return signed((a[0] & ((1 << w) - 1)) >> a[1], w)
        if o == 'arith.ori': return signed(a[0] | a[1], w)
        if o == 'arith.andi': return a[0] & a[1]
        if o == 'arith.select': return a[1] if a[0] else a[2]
        if o == 'arith.cmpi':
            p = int(attr(op, 'predicate').split(':')[0])
            x, y = a
            if p >= 6:
                x, y = x & M, y & M
            return int({0: x == y, 1: x != y, 2: x < y, 3: x <= y, 4: x > y, 5: x >= y,
                        6: x < y, 7: x <= y, 8: x > y, 9: x >= y}[p])
        if o == 'arith.addf': return a[0] + a[1]
        if o == 'arith.subf': return a[0] - a[1]
        if o == 'arith.negf': return -a[0]
        if o == 'math.absf': return abs(a[0])
        if o == 'math.exp': return math.exp(a[0])
        if o == 'math.sqrt': return math.sqrt(a[0]) if a[0] >= 0 else math.nan
        if o == 'math.log':
            if a[0] == 0: return -math.inf
            return math.log(a[0]) if a[0] > 0 else math.nan
        if o == 'arith.divf': return divide(a[0], a[1])
        if o == 'arith.mulf': return a[0] * a[1]
        if o == 'arith.maximumf':
            if any(map(math.isnan, a)): return math.nan
            return max(a)
        if o == 'arith.minimumf':
            if any(map(math.isnan, a)): return math.nan
            return min(a)
        if o == 'arith.cmpf':
            p = int(attr(op, 'predicate').split(':')[0])
            x, y = a
            unordered = math.isnan(x) or math.isnan(y)
            ordered = {1: x == y, 2: x > y, 3: x >= y, 4: x < y, 5: x <= y,
                       6: x != y, 7: True}
            if p in ordered: return int(not unordered and ordered[p])
            if p == 14: return int(unordered)
            raise NotImplementedError(f'cmpf predicate {p}')
        if o in ('arith.extf', 'arith.sitofp', 'arith.uitofp'): return float(a[0])
        if o == 'llvm.getelementptr':
            if len(a) == 1:  # a constant index, folded into the op
                k = int(re.search(r'rawConstantIndices = array<i32: (-?\d+)>', op['rest']).group(1))
                return Ptr(a[0].buf, a[0].off + k)
            return Ptr(a[0].buf, a[0].off + a[1])
        raise NotImplementedError(o)

    def get(self, v, name):
        if '#' in name:
            base, k = name.split('#')
            return v[base][int(k)]
        return v[name]

    def run_ops(self, ops, v, ctx):
        """Runs a region's ops for one thread; returns what it yields."""
        for op in ops:
            if isinstance(op, tuple):  # a block header
                continue
            r = self.step(op, v, ctx)
            if r is not None and op['op'] == 'scf.yield':
                return r
        return []

    def step(self, op, v, ctx):
        o = op['op']
        if o == 'scf.yield':
            return [self.get(v, x) for x in op['args']]
        if o in ('gpu.return', 'gpu.barrier', 'func.return'):
            return None
        if o == 'gpu.thread_id':
            v[op['res']] = ctx['tid']; return None
        if o == 'gpu.block_id':
            v[op['res']] = ctx['bid']; return None
        if o == 'scf.for':
            lb, ub, st, *init = [self.get(v, x) for x in op['args']]
            body = op['regions'][0]
            names = body[0][1]
            acc = init
            i = lb
            while i < ub:
                v[names[0]] = i
                for n, x in zip(names[1:], acc):
                    v[n] = x
                acc = self.run_ops(body[1:], v, ctx)
                i += st
            if op['res']:
                if op['n'] > 1:
                    v[op['res']] = acc
                else:
                    v[op['res']] = acc[0]
            return None
        if o == 'scf.if':
            c = self.get(v, op['args'][0])
            r = []
            if c:
                r = self.run_ops(op['regions'][0], v, ctx)
            elif len(op['regions']) > 1:
                r = self.run_ops(op['regions'][1], v, ctx)
            if op['res']:
                v[op['res']] = r if op['n'] > 1 else r[0]
            return None
        if o == 'llvm.load':
            p = self.get(v, op['args'][0])
            m = re.search(r'-> vector<(\d+)x', op['rest'])
            n = int(m.group(1)) if m else 1
            if n > 1:  # a vector load: aligned to the whole vector
                assert p.off % n == 0, "misaligned vector load"
            vals = p.buf[p.off:p.off + n]
            assert len(vals) == n and None not in vals, "read of an unwritten element"
            ctx['loads'].extend((id(p.buf), p.off + j) for j in range(n))
            v[op['res']] = vals if n > 1 else vals[0]; return None
        if o == 'vector.from_elements':
            v[op['res']] = [self.get(v, x) for x in op['args']]; return None
        if o == 'vector.extract':
            pos = int(re.search(r'static_position = array<i64: (\d+)>', op['rest']).group(1))
            v[op['res']] = self.get(v, op['args'][0])[pos]; return None
        if o == 'llvm.store':
            val, p = [self.get(v, x) for x in op['args']]
            vals = val if isinstance(val, list) else [val]
            if len(vals) > 1:  # a vector store: aligned to the whole vector
                assert p.off % len(vals) == 0, "misaligned vector store"
            assert 0 <= p.off and p.off + len(vals) <= len(p.buf), "store out of bounds"
            ctx['stores'].extend((id(p.buf), p.off + j) for j in range(len(vals)))
            p.buf[p.off:p.off + len(vals)] = vals; return None
        if o == 'memref.load':
            m, idx = [self.get(v, x) for x in op['args']]
            v[op['res']] = m[idx]; return None
        if o == 'memref.store':
            val, m, idx = [self.get(v, x) for x in op['args']]
            m[idx] = val; return None
        if o == 'gpu.shuffle':
            raise AssertionError("shuffle handled at top level")
        if o == 'nvvm.mapa':  # the same shared buffer in block `rank`
            p, rank = [self.get(v, x) for x in op['args']]
            name = ctx['shared'][id(p.buf)]
            v[op['res']] = Ptr(ctx['cluster'][rank][name], p.off); return None
        v[op['res']] = self.scalar(op, v)
        return None

    def launch(self, name, grid, block, args):
        body = self.kernels[name]
        params = body[0][1]
        nparams = len(args)
        cluster = self.clusters[name]
        assert grid % cluster == 0, "a grid of whole clusters"
        self.threads = block * cluster  # in lockstep
        for first in range(0, grid, cluster):
            # One buffer per workgroup attribution, shared by the block.
            smems = [{w: [None] * 4096 for w in params[nparams:]}
                     for _ in range(cluster)]
            shared = {id(buf): w for smem in smems for w, buf in smem.items()}
            vs, ctx = [], []
            for b, smem in enumerate(smems):
                for t in range(block):
                    v = dict(zip(params[:nparams], args))
                    v.update(smem)
                    vs.append(v)
                    ctx.append(dict(tid=t, bid=first + b, loads=self.loads,
                                    stores=self.stores, cluster=smems,
                                    shared=shared))
            self.lockstep(body[1:], vs, ctx)

    def collective(self, op):
        """Whether op is, or holds, a barrier or a shuffle."""
        if op['op'] in ('gpu.shuffle', 'gpu.barrier', 'nvvm.cluster.arrive',
                        'nvvm.cluster.wait'):
            return True
        return any(self.collective(x) for r in op['regions'] for x in r
                   if not isinstance(x, tuple))

    def lockstep(self, ops, vs, ctxs):
        """Runs ops for the threads `vs` one op at a time for all of them
        (loops and branches around barriers and shuffles too: a loop's
        bounds must be the same in every thread, a barrier must be reached
        by the whole block); returns what each thread yields."""
        yields = [[] for _ in vs]
        for op in ops:
            if isinstance(op, tuple):
                continue
            o = op['op']
            if o == 'gpu.shuffle':
                vals = {(c['bid'], c['tid']): self.get(v, op['args'][0])
                        for v, c in zip(vs, ctxs)}
                mode = re.search(r'shuffle_mode (\w+)', op['rest']).group(1)
                for v, c in zip(vs, ctxs):
                    off = self.get(v, op['args'][1])
                    # gpu.shuffle's width is the lanes taking part (the
                    # first ones), which NVVM lowers as a mask: only whole
                    # warps here.
                    assert self.get(v, op['args'][2]) == 32
                    t = c['tid']
                    lane = t % 32
                    src = {'xor': t ^ off, 'up': t - off if lane >= off else t,
                           'down': t + off if lane + off < 32 else t,
                           'idx': t - lane + off}[mode]
                    src = (c['bid'], src)
                    assert src in vals, "shuffle from a lane not taking part"
                    v[op['res']] = [vals[src], 1]
                continue
            if o in ('gpu.barrier', 'nvvm.cluster.arrive', 'nvvm.cluster.wait'):
                assert len(vs) == self.threads, "barrier in divergent code"
                continue
            if o == 'scf.yield':
                yields = [[self.get(v, x) for x in op['args']] for v in vs]
                continue
            if o == 'scf.for' and self.collective(op):
                bounds = [[self.get(v, x) for x in op['args'][:3]] for v in vs]
                assert all(bd == bounds[0] for bd in bounds), "divergent loop"
                lb, ub, st = bounds[0]
                accs = [[self.get(v, x) for x in op['args'][3:]] for v in vs]
                body = op['regions'][0]
                names = body[0][1]
                i = lb
                while i < ub:
                    for v, acc in zip(vs, accs):
                        v[names[0]] = i
                        for n, x in zip(names[1:], acc):
                            v[n] = x
                    accs = self.lockstep(body[1:], vs, ctxs)
                    i += st
                if op['res']:
                    for v, acc in zip(vs, accs):
                        v[op['res']] = acc if op['n'] > 1 else acc[0]
                continue
            if o == 'scf.if' and self.collective(op):
                conds = [self.get(v, op['args'][0]) for v in vs]
                res = [[] for _ in vs]
                for k, region in enumerate(op['regions'][:2]):
                    sel = [j for j, c in enumerate(conds) if bool(c) == (k == 0)]
                    if sel and region:
                        ys = self.lockstep(region, [vs[j] for j in sel],
                                           [ctxs[j] for j in sel])
                        for j, y in zip(sel, ys):
                            res[j] = y
                if op['res']:
                    for v, r in zip(vs, res):
                        v[op['res']] = r if op['n'] > 1 else r[0]
                continue
            for v, c in zip(vs, ctxs):
                self.step(op, v, c)
        return yields


def run_host(m, fname, inputs):
    """Host code on tensors after --fuser-reduction-to-gpu: allocs,
    pointers, launches. Returns the returned buffers."""
    body = m.funcs[fname]
    params = body[0][1]
    v = dict(zip(params, inputs))
    m.loads = []
    m.stores = []
    for op in body[1:]:
        if isinstance(op, tuple):
            continue
        o = op['op']
        if o == 'memref.alloc':
            dims = [int(d) for d in re.findall(r'(\d+)x', op['rest'].split('memref<')[1])]
            n = 1
            for d in dims:
                n *= d
            v[op['res']] = [None] * n
        elif o in ('bufferization.to_buffer', 'bufferization.to_tensor'):
            v[op['res']] = v[op['args'][0]]
        elif o == 'memref.extract_aligned_pointer_as_index':
            v[op['res']] = Ptr(v[op['args'][0]], 0)
        elif o in ('arith.index_castui', 'llvm.inttoptr'):
            v[op['res']] = v[op['args'][0]]
        elif o == 'arith.constant':
            v[op['res']] = const_value(op)
        elif o == 'gpu.launch_func':
            name = re.search(r'kernel = @fuser_kernels::@(\w+)', op['rest']).group(1)
            vals = [v[a] for a in op['args']]
            # operands: grid xyz, block xyz, [cluster], args...
            grid, block = vals[0], vals[3]
            assert vals[1] == vals[2] == vals[4] == vals[5] == 1
            m.launch(name, grid, block, vals[6:])
        elif o == 'func.return':
            return [v[a] for a in op['args']]
        elif o in ('arith.muli', 'arith.ceildivui', 'arith.addi'):
            v[op['res']] = m.scalar(op, v)
        else:
            raise NotImplementedError(o)


# Helpers the cases files may call.
def best(row, fn):
    """PyTorch's max/min with index over `row` (fn: max or min): a NaN wins
    (its first index), else the first index of the best value."""
    for i, x in enumerate(row):
        if math.isnan(x):
            return x, i
    v = fn(row)
    return v, row.index(v)


def special_row(rng, n, kind):
    """Rows for arg reductions: 0 ties among few values, 1 two NaNs, 2 all
    -inf, 3 two +infs, 4 all equal, 5 few values and -infs."""
    few = lambda: float(rng.choice([-4, -1, 0, 3, 3, 6]))
    row = [few() for _ in range(n)]
    if kind == 1:
        row[rng.randrange(n // 2, n)] = math.nan
        row[rng.randrange(n // 2)] = math.nan
    elif kind == 2:
        row = [-math.inf] * n
    elif kind == 3:
        row[n - 7] = row[n // 3] = math.inf
    elif kind == 4:
        row = [2.0] * n
    elif kind == 5:
        row = [x if rng.random() < 0.3 else -math.inf for x in row]
    return row


def softmax_row(rng, n, kind):
    """Rows for the online softmax: 0 both signs, 1 a NaN, 2 all -inf, 3 a
    +inf, 4 -infs among values, 5 all equal (ties), 6 a rising row (the
    maximum grows at every element)."""
    row = [rng.uniform(-30.0, 30.0) for _ in range(n)]
    if kind == 1:
        row[rng.randrange(n)] = math.nan
    elif kind == 2:
        row = [-math.inf] * n
    elif kind == 3:
        row[rng.randrange(n)] = math.inf
    elif kind == 4:
        row = [x if rng.random() < 0.3 else -math.inf for x in row]
    elif kind == 5:
        row = [1.5] * n
    elif kind == 6:
        row = [0.25 * i - 20.0 for i in range(n)]
    return row


def softmax_stats(row):
    """A row's maximum and sum of exp(x - maximum) as PyTorch has them (a
    NaN or a +inf makes the sum NaN), except a row of -inf, whose sum is 0
    (PyTorch's NaN; the softmax is NaN either way)."""
    if any(map(math.isnan, row)):
        return math.nan, math.nan
    m = max(row)
    if m == -math.inf:
        return m, 0.0
    if m == math.inf:
        return m, math.nan
    return m, math.fsum(math.exp(x - m) for x in row)


def whole_values(row):
    """The row's finite values rounded to whole numbers: its sums are exact
    in any order."""
    return [float(round(x)) if math.isfinite(x) else x for x in row]


def lse(row):
    """log(sum of exp(x - m)) + m from softmax_stats: -inf for a row of
    -inf (log 0), NaN where the sum is."""
    m, s = softmax_stats(row)
    if s == 0:
        return -math.inf
    return math.log(s) + m if s > 0 else math.nan


def pool(x, fn):
    """fn over the windows of pool_sum / pool_max in the .mlir: x is
    2x3x9x10 (flat), the window 3 x 2 with stride 2 down, dilation 2
    across; the output 2x3x4x8 (flat)."""
    at = lambda n, c, h, w: x[((n * 3 + c) * 9 + h) * 10 + w]
    return [float(fn(at(n, c, 2 * h + i, w + 2 * j) for i in range(3) for j in range(2)))
            for n in range(2) for c in range(3) for h in range(4) for w in range(8)]


def pool_loads():
    """How many windows of pool() read each input element."""
    counts = [0] * (2 * 3 * 9 * 10)
    for n in range(2):
        for c in range(3):
            for h in range(4):
                for w in range(8):
                    for i in range(3):
                        for j in range(2):
                            counts[((n * 3 + c) * 9 + 2 * h + i) * 10 + w + 2 * j] += 1
    return counts


def pool_tile(x):
    """pool_tile in the .mlir: sums of the 3 x 3, stride-1 windows of x
    (2x3x9x12, flat); the output 2x3x7x10 (flat)."""
    at = lambda n, c, h, w: x[((n * 3 + c) * 9 + h) * 12 + w]
    return [float(sum(at(n, c, h + i, w + j) for i in range(3) for j in range(3)))
            for n in range(2) for c in range(3) for h in range(7) for w in range(10)]


def pool_tile_loads():
    """The loads of pool_tile's kernel, 4 x 4 outputs per thread, 32
    threads per block (64 threads for 36 outputs; the spare ones take the
    last output's): a thread at output (r0, c0) (r0 clamped to 3, the last
    group of 4 rows) loads the 6 input rows its windows read as the vector
    at column c0, and the one at c0 + 4 only where the next lane does not
    hold it (the warp's last lane; the row's last group, whose second
    vector would pass the row and is loaded from column 8 instead)."""
    counts = [0] * (2 * 3 * 9 * 12)
    for t in range(64):
        o = min(t, 35)
        nc, rest = divmod(o, 6)
        rg, cg = divmod(rest, 3)
        r0, c0 = min(4 * rg, 3), 4 * cg
        starts = [c0]
        if t % 32 == 31 or cg == 2:
            starts.append(c0 + 4 if c0 + 4 < 12 else 8)
        for h in range(r0, r0 + 6):
            for start in starts:
                for w in range(start, start + 4):
                    counts[(nc * 9 + h) * 12 + w] += 1
    return counts


def pool_padded(x):
    """pool_sum_padded in the .mlir: x (2x3x9x10) padded by one with 0.5 on
    both sides of the last two dimensions, summed over pool()'s window;
    returns the output (2x3x5x10) and the loads per element of x (a load
    outside x reads element 0, its value discarded)."""
    out, loads = [], [0] * len(x)
    for n in range(2):
        for c in range(3):
            for h in range(5):
                for w in range(10):
                    total = 0.0
                    for i in range(3):
                        for j in range(2):
                            hh, ww = 2 * h + i - 1, w + 2 * j - 1
                            inside = 0 <= hh < 9 and 0 <= ww < 10
                            at = ((n * 3 + c) * 9 + hh) * 10 + ww if inside else 0
                            loads[at] += 1
                            total += x[at] if inside else 0.5
                    out.append(total)
    return out, loads


def same(a, b):
    """Equal lists, NaN equal to NaN; floats equal to 1e-12 relative (the
    online softmax's sums round differently from a direct sum; integer sums
    are exact either way)."""
    def eq(x, y):
        if x == y:
            return True
        if not (isinstance(x, float) and isinstance(y, float)):
            return False
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return math.isfinite(x) and math.isfinite(y) and \
            abs(x - y) <= 1e-12 * max(1.0, abs(y))
    return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))


def check(m, fname, inputs, ref, expected_loads=None):
    """`ref`: the first output, or a tuple of every output.
    `expected_loads`: how often each element of the first input is loaded
    (default: once each)."""
    outs = run_host(m, fname, inputs)
    loads = Counter(off for buf, off in m.loads if buf == id(inputs[0]))
    want = expected_loads or [1] * len(inputs[0])
    got_loads = [loads.get(i, 0) for i in range(len(inputs[0]))]
    assert got_loads == want and len(loads) == sum(1 for c in want if c), \
        f"{fname}: input elements loaded other than {'once' if expected_loads is None else 'as expected'}"
    if STORES_ONCE:
        stores = Counter(m.stores)
        for out in outs:
            twice = [i for i in range(len(out)) if stores.get((id(out), i), 0) != 1]
            assert not twice, f"{fname}: output elements {twice[:8]} not stored exactly once"
    again = run_host(m, fname, inputs)
    assert all(map(same, outs, again)), f"{fname}: two runs differ"
    got, want = (outs, ref) if isinstance(ref, tuple) else ([outs[0]], [ref])
    ok = len(got) == len(want) and all(map(same, got, want))
    print(fname, "OK" if ok else f"MISMATCH {[g[:8] for g in got]} != {[w[:8] for w in want]}")


# --stores-once: every element of every returned buffer is stored exactly
# once (the reduction epilogue's threads past the row store nothing).
STORES_ONCE = "--stores-once" in sys.argv


def main():
    m = Machine(sys.stdin.read())
    rng = random.Random(1)
    with open(sys.argv[1]) as f:
        cases = eval(f.read())
    for name, spec in cases.items():
        # (inputs, outputs) or (inputs, outputs, loads per input element)
        check(m, name, *spec(rng))


if __name__ == "__main__":
    main()
