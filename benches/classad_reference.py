#!/usr/bin/env python3
"""Times HTCondor's own ClassAd library (pip htcondor, classad2) on the same
operations as benches/classad.rs: parse the job ad, one-way match, symmetric
match, constant expression. Prints one line per operation: name and ns/op."""
import os
import sys
import timeit

import classad2 as classad
import htcondor2  # noqa: F401  (switches on HTCondor's old-ClassAd semantics, as the tools have)

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = open(os.path.join(HERE, "data", "job.ad")).read()
SLOT = open(os.path.join(HERE, "data", "slot.ad")).read()

job = classad.ClassAd(JOB)
slot = classad.ClassAd(SLOT)
req = job.lookup("Requirements")
sreq = slot.lookup("Requirements")
assert req.eval(job, slot) is True, "the job must match the slot"
const = classad.ExprTree('(1 + 2) * 3 == 9 && "abc" < "abd"')

def one_way():
    return req.eval(job, slot)

def symmetric():
    return job.symmetricMatch(slot)

cases = [
    ("parse job ad", lambda: classad.ClassAd(JOB)),
    ("one-way match", one_way),
    ("symmetric match", symmetric),
    ("constant expression", lambda: const.eval()),
]
for name, fn in cases:
    n = 20000
    best = min(timeit.repeat(fn, number=n, repeat=5)) / n
    print(f"{name}\t{best * 1e9:.0f}")
sys.stdout.flush()
