#!/usr/bin/env python3
"""Gavel's own packed (space-sharing) policies on small random problems: the reference figures of
tests/policies/gavel_packed_test.cc (GavelPackedReference*).

Gavel: stanford-futuredata/gavel @ c4fa400 (MIT licence), scheduler/policies/*.py, the classes
MaxMinFairnessPolicyWithPacking, FinishTimeFairnessPolicyWithPacking,
MinTotalDurationPolicyWithPacking, MaxMinFairnessWaterFillingPolicyWithPacking and
FIFOPolicyWithPacking, called directly (no simulator). cvxpy is the peers' stand-in module
(cvxpy.py beside gavel_cvxpy_shim; LPs and MILPs by scipy's HiGHS with GAVEL_SHIM_SOLVER=highs,
or by cvxopt / GLPK with GAVEL_SHIM_SOLVER=cvxopt). Not part of the build; run by hand:

  cd GAVEL/scheduler && GAVEL_SHIM_SOLVER=highs PYTHONPATH=SHIM:.:runtime/rpc_stubs \\
      /usr/bin/python3 HETSCHED/tests/data/gavel_packed/gavel_packed_reference.py > cases.inc

(in the session that made the figures: GAVEL=/tmp/peersB/gavel, SHIM=/tmp/peersB/shim). It prints
the C++ initialiser pasted into the test: per case, the problem (rates rounded as below, so that the
test holds the exact inputs) and Gavel's objective values and per-job effective throughputs.

Problems (numpy RandomState(seed)): 3-8 single-GPU jobs (or all 2-GPU for a few seeds), 1-3 types
of 1-4 GPUs; isolated rates uniform [1, 10] steps/s (2 decimals), 0 with probability 0.1 on a type
(never on every type); every pair present, on each type with probability 0.2 at [0, 0] (cannot pack)
else each member at a fraction uniform [0.3, 1.0] of its isolated rate there (3 decimals); remaining
steps uniform [1e3, 1e5] (whole); time since start uniform [0, 5000] s (whole); weights 1. For
max_sum_throughput_normalized_by_cost_packed_SLOs (its own RandomState(seed + 1000), so that the
other figures do not depend on it): prices per type uniform [0.5, 3] (2 decimals); each job with
probability 0.5 an SLO (time left, s) of remaining / (its best rate x u), u uniform [0.1, 0.6]
(whole seconds), which some cases cannot all meet (Gavel then solves without them).
"""
import contextlib
import sys
sys.path.insert(0, 'policies')

import numpy as np

from job_id_pair import JobIdPair as J
from policies import finish_time_fairness, max_min_fairness, max_min_fairness_water_filling
from policies import min_total_duration, fifo, max_sum_throughput

ALL_TYPES = ['k80', 'p100', 'v100']


def make_case(seed):
    rng = np.random.RandomState(seed)
    n = int(rng.randint(3, 9))
    nt = int(rng.randint(1, 4))
    types = ALL_TYPES[:nt]
    gpus = 2 if seed % 5 == 4 else 1
    cap = [int(rng.randint(1, 5)) * gpus for _ in types]
    iso = np.round(rng.uniform(1, 10, size=(n, nt)), 2)
    for i in range(n):
        for k in range(nt):
            if rng.uniform() < 0.1:
                iso[i, k] = 0.0
        if iso[i].max() == 0:
            iso[i, int(rng.randint(nt))] = 5.0
    pairs = []
    for a in range(n):
        for b in range(a + 1, n):
            ta, tb = [], []
            for k in range(nt):
                if rng.uniform() < 0.2 or iso[a, k] == 0 or iso[b, k] == 0:
                    ta.append(0.0); tb.append(0.0)
                else:
                    ta.append(round(float(iso[a, k] * rng.uniform(0.3, 1.0)), 3))
                    tb.append(round(float(iso[b, k] * rng.uniform(0.3, 1.0)), 3))
            pairs.append((a, b, ta, tb))
    remaining = [float(int(rng.uniform(1e3, 1e5))) for _ in range(n)]
    elapsed = [float(int(rng.uniform(0, 5000))) for _ in range(n)]
    crng = np.random.RandomState(seed + 1000)
    prices = [round(float(crng.uniform(0.5, 3.0)), 2) for _ in types]
    slo = []
    for i in range(n):
        has = crng.uniform() < 0.5
        u = crng.uniform(0.1, 0.6)
        slo.append(float(int(remaining[i] / (iso[i].max() * u))) if has else -1.0)
    return dict(seed=seed, n=n, types=types, cap=cap, gpus=gpus, iso=iso, pairs=pairs,
                remaining=remaining, elapsed=elapsed, prices=prices, slo=slo)


def gavel_inputs(c):
    tp, sf, w = {}, {}, {}
    for i in range(c['n']):
        tp[J(i, None)] = {t: float(c['iso'][i, k]) for k, t in enumerate(c['types'])}
        sf[J(i, None)] = c['gpus']
        w[J(i, None)] = 1.0
    for (a, b, ta, tb) in c['pairs']:
        tp[J(a, b)] = {t: [ta[k], tb[k]] for k, t in enumerate(c['types'])}
    spec = {t: c['cap'][k] for k, t in enumerate(c['types'])}
    return tp, sf, w, spec


def rates(c, x):
    """Per job: sum over its combinations and types of its rate there x X (raw, as Gavel runs it)."""
    r = [0.0] * c['n']
    for i in range(c['n']):
        for k, t in enumerate(c['types']):
            r[i] += c['iso'][i, k] * x[J(i, None)][t]
    for (a, b, ta, tb) in c['pairs']:
        for k, t in enumerate(c['types']):
            r[a] += ta[k] * x[J(a, b)][t]
            r[b] += tb[k] * x[J(a, b)][t]
    return r


def proportional(c):
    tot = sum(c['cap'])
    return [sum(c['iso'][i, k] * c['cap'][k] for k in range(len(c['types']))) / tot for i in range(c['n'])]


def isolated(c):
    n, tot = c['n'], sum(c['cap'])
    out = []
    for i in range(n):
        xs = [cap / n / c['gpus'] for cap in c['cap']]
        s = max(sum(xs), 1.0)
        out.append(sum(c['iso'][i, k] * xs[k] / s for k in range(len(c['types']))))
    return out


def fmt(v):
    return '{' + ', '.join('%.10g' % x for x in v) + '}'


def run(c):
    tp, sf, w, spec = gavel_inputs(c)
    n = c['n']
    out = {}
    # max_min_fairness_packed
    x = max_min_fairness.MaxMinFairnessPolicyWithPacking(solver='ECOS').get_allocation(tp, sf, w, spec)
    r = rates(c, x)
    p = proportional(c)
    out['mmf'] = (min(r[i] * c['gpus'] / p[i] for i in range(n)), r)
    # finish_time_fairness_packed: two calls, the second after some progress (Cum_i grows)
    pol = finish_time_fairness.FinishTimeFairnessPolicyWithPacking(solver='ECOS')
    steps = {J(i, None): c['remaining'][i] for i in range(n)}
    since = {J(i, None): c['elapsed'][i] for i in range(n)}
    x = pol.get_allocation(tp, sf, w, since, steps, spec)
    iso = isolated(c)
    r = rates(c, x)
    rho = max((c['elapsed'][i] + c['remaining'][i] / r[i]) / (c['remaining'][i] / iso[i]) for i in range(n))
    out['ftf'] = (rho, r)
    # second call: 1000 s later, each job made 1000 s of its first-call rate (whole steps)
    rem2 = [max(1.0, float(int(c['remaining'][i] - 1000 * r[i]))) for i in range(n)]
    steps2 = {J(i, None): rem2[i] for i in range(n)}
    since2 = {J(i, None): c['elapsed'][i] + 1000 for i in range(n)}
    x = pol.get_allocation(tp, sf, w, since2, steps2, spec)
    r2 = rates(c, x)
    cum = [(c['remaining'][i] - rem2[i]) / iso[i] for i in range(n)]
    rho2 = max((c['elapsed'][i] + 1000 + rem2[i] / r2[i]) / (cum[i] + rem2[i] / iso[i]) for i in range(n))
    out['ftf2'] = (rho2, r2, rem2)
    # min_total_duration_packed: the last feasible T of its bisection
    pol = min_total_duration.MinTotalDurationPolicyWithPacking(solver='ECOS')
    feasible_T = []
    helper = pol.get_allocation_helper
    def recording(*args):
        status, xv = helper(*args)
        if status == 'optimal':
            feasible_T.append(args[4])
        return status, xv
    pol.get_allocation_helper = recording
    x = pol.get_allocation(tp, sf, steps, spec)
    out['mtd'] = (feasible_T[-1], rates(c, x))
    # max_min_fairness_water_filling_packed: normalised effective throughputs
    pol = max_min_fairness_water_filling.MaxMinFairnessWaterFillingPolicyWithPacking()
    x = pol.get_allocation(tp, sf, w, spec)
    r = rates(c, x)
    out['wf'] = ([r[i] / p[i] for i in range(n)], r)
    # fifo_packed: the combinations given a type
    x = fifo.FIFOPolicyWithPacking().get_allocation(tp, sf, spec)
    given = []
    for combo in sorted(x):
        for k, t in enumerate(c['types']):
            if x[combo][t] > 0:
                a = combo[0]
                b = combo[1] if combo.is_pair() else -1
                given.append((a, b, k))
    out['fifo'] = given
    # max_sum_throughput_normalized_by_cost_packed_SLOs
    slos = {J(i, None): c['slo'][i] for i in range(n) if c['slo'][i] > 0}
    x = max_sum_throughput.ThroughputNormalizedByCostSumWithPackingSLOs(solver='ECOS').get_allocation(
        tp, sf, spec, instance_costs={t: c['prices'][k] for k, t in enumerate(c['types'])}, SLOs=slos,
        num_steps_remaining=steps)
    r = rates(c, x)
    obj = 0.0
    for i in range(n):
        for k, t in enumerate(c['types']):
            obj += c['iso'][i, k] * x[J(i, None)][t] / c['prices'][k]
    for (a, b, ta, tb) in c['pairs']:
        for k, t in enumerate(c['types']):
            obj += (ta[k] + tb[k]) * x[J(a, b)][t] / c['prices'][k]
    met = all(r[i] >= c['remaining'][i] / c['slo'][i] * (1 - 1e-6) for i in range(n) if c['slo'][i] > 0)
    out['cost'] = (obj, r, met)
    return out


def main():
    seeds = [int(s) for s in sys.argv[1:]] or list(range(12))
    for seed in seeds:
        c = make_case(seed)
        with contextlib.redirect_stdout(sys.stderr):  # Gavel's warnings
            o = run(c)
        print('    {%d, %d, %s, %s,' % (seed, c['gpus'], fmt(c['cap']), '{' + ', '.join('"%s"' % t for t in c['types']) + '}'))
        print('     {' + ', '.join(fmt(row) for row in c['iso']) + '},')
        print('     {' + ', '.join('{%d, %d, %s, %s}' % (a, b, fmt(ta), fmt(tb)) for (a, b, ta, tb) in c['pairs']) + '},')
        print('     %s, %s,' % (fmt(c['remaining']), fmt(c['elapsed'])))
        print('     %.10g, %s,' % (o['mmf'][0], fmt(o['mmf'][1])))
        print('     %.10g, %s,' % (o['ftf'][0], fmt(o['ftf'][1])))
        print('     %s, %.10g, %s,' % (fmt(o['ftf2'][2]), o['ftf2'][0], fmt(o['ftf2'][1])))
        print('     %.10g, %s,' % (o['mtd'][0], fmt(o['mtd'][1])))
        print('     %s,' % fmt(o['wf'][0]))
        print('     {' + ', '.join('{%d, %d, %d}' % g for g in o['fifo']) + '},')
        print('     %s, %s, %d, %.10g, %s},' % (fmt(c['prices']), fmt(c['slo']), o['cost'][2], o['cost'][0],
                                              fmt(o['cost'][1])))


if __name__ == '__main__':
    main()
