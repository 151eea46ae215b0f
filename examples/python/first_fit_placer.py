"""First fit in Python: the lowest-id node of the first candidate type with room for the whole
job; if none, the free devices of that type's nodes in id order. It gives exactly the results of
hetsched's built-in `first-fit` placer (tests/python/test_api.py checks it).

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/first_fit_placer.py [TRACE]
"""
import sys

import hetsched


class FirstFitPlacer(hetsched.Placer):
    def place(self, request, cluster):
        n = request.num_devices
        for device_type in request.candidate_types:
            if cluster.free_devices(device_type) < n:
                continue
            nodes = cluster.nodes(device_type)
            for node in nodes:  # one node for the whole job, if any has room
                free = cluster.free_devices_on(node)
                if len(free) >= n:
                    return free[:n]
            chosen = []  # otherwise the free devices in node order
            for node in nodes:
                chosen += cluster.free_devices_on(node)
                if len(chosen) >= n:
                    return chosen[:n]
        return None


if __name__ == "__main__":
    trace = sys.argv[1] if len(sys.argv) > 1 else None
    ours = hetsched.simulate(trace, placer=FirstFitPlacer())
    builtin = hetsched.simulate(trace, placer="first-fit")
    print("Python FirstFitPlacer:", ours)
    print("built-in first-fit   :", builtin)
    print("jobs.csv identical   :", ours.jobs.equals(builtin.jobs))
