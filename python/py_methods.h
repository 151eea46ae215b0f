// The Python module's policies and placers written in Python (issue 22): a C++ JobScheduler and a
// Placer that forward to a Python object, with copies of the visible job state (never the
// simulator's truth) and a context valid only during the call. An exception raised there ends the
// run (SchedContext::Fail) and is kept in a PythonFault, which simulate() raises again after the
// run with its traceback.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"

namespace hetsched::python {

namespace py = pybind11;

// The first exception a run's Python methods raised. Released with the GIL held.
struct PythonFault {
  std::optional<py::error_already_set> raised;
};

// `policy`'s methods (on_job_submitted, on_job_finished, on_job_requeued, on_job_running,
// schedule; each optional) called with a Job copy and a SchedContext; `round_period_s` read once.
std::unique_ptr<JobScheduler> PythonSchedulerFor(py::object policy, std::shared_ptr<PythonFault> fault);
// `placer.place(request, cluster)` returning device ids or None; what it returns is checked.
std::unique_ptr<Placer> PythonPlacerFor(py::object placer, std::shared_ptr<PythonFault> fault);

// The classes a Python policy or placer is handed: Job, SchedContext, PlacementRequest, ClusterView.
void BindViews(py::module_& m);

}  // namespace hetsched::python
