#!/usr/bin/env python3
"""Static SASS view of a CUDA object: per kernel, its loops (backward
branches over at least N instructions, default 64) and an opcode histogram
of the largest loop or of a given address range (hex), for judging a kernel
change by its machine code before spending GPU time on it.

usage: sass-loops.py OBJ.o [FUNC_SUBSTRING] [--min N] [--range LO HI] [--dump]

OBJ.o: e.g. nvcc -gencode arch=compute_90,code=sm_90 -std=c++17 -O3 -c
-Ikernels -Ikernels/cuda -IBUILD kernels/cuda/cuda-kuwahara.cu.  Needs
cuobjdump on PATH; where the CUDA toolkit lacks it, the PyPI wheel
nvidia-cuda-cuobjdump has one (pip download --no-deps, unzip, then
nvidia/cu13/bin).  Static counts: a loop's branches are all counted, taken
or not; ncu's inst_executed gives the dynamic ones."""
import re, subprocess, sys, collections
args = sys.argv[1:]
obj = args.pop(0)
mn = 64; rng = None; dump = False; sub = None
while args:
    a = args.pop(0)
    if a == '--min': mn = int(args.pop(0))
    elif a == '--range': rng = (int(args.pop(0), 16), int(args.pop(0), 16))
    elif a == '--dump': dump = True
    else: sub = a
sass = subprocess.run(['cuobjdump', '-sass', obj], capture_output=True, text=True).stdout
funcs = re.split(r'\n\s+Function : ', sass)[1:]
for f in funcs:
    name = f.split('\n', 1)[0].strip()
    if sub and sub not in name: continue
    ins = []
    for l in f.split('\n'):
        m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);', l)
        if m: ins.append((int(m.group(1), 16), m.group(2).strip()))
    print(f'== {name}: {len(ins)} instructions')
    loops = []
    for a, t in ins:
        m = re.search(r'BRA (?:\S+, )?0x([0-9a-f]+)', t)
        if m and int(m.group(1), 16) < a and (a - int(m.group(1), 16)) // 16 >= mn:
            loops.append((int(m.group(1), 16), a))
    for lo, hi in loops:
        print(f'   loop 0x{lo:x}..0x{hi:x}: {(hi - lo) // 16 + 1} instructions')
    if rng: sel = [rng]
    elif loops: sel = [max(loops, key=lambda x: x[1] - x[0])]
    else: sel = []
    for lo, hi in sel:
        c = collections.Counter()
        for a, t in ins:
            if lo <= a <= hi:
                if dump: print(f'      {a:05x} {t}')
                t = re.sub(r'^@!?U?P\w+\s+', '', t)
                c[t.split()[0]] += 1
        print(f'   histogram 0x{lo:x}..0x{hi:x} ({sum(c.values())}):')
        items = c.most_common()
        for i in range(0, len(items), 6):
            print('     ' + '  '.join(f'{v:4d} {k:<18}' for k, v in items[i:i + 6]))
