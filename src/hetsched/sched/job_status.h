// What any back end can observe about a job: its spec, state, and the service it has received.
// Never the simulator's truth.
#pragma once

#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/job.h"

namespace hetsched {

// kDropped: ended unfinished by the scheduler (SchedContext::DropJob; Gavel's simulator drops a
// job whose micro-task failed five times in a row).
enum class JobState { kPending, kRunning, kFinished, kDropped };

struct JobStatus {
  const JobSpec* spec = nullptr;
  JobState state = JobState::kPending;
  double queued_since_s = 0;        // submit time, or the time of the last preemption
  double first_start_s = -1;        // -1 until first started
  double last_start_s = -1;         // start of the current run (or of its resume after an idle hold)
  double finish_s = -1;
  int preemptions = 0;
  std::vector<DeviceId> devices;    // held now (empty unless running)
  DeviceTypeId device_type = kNoDeviceType;  // type of the current (or last) allocation
  // Accumulated up to the last change of allocation; the Attained*() helpers add the running part.
  double service_gpu_s = 0;         // device-seconds held
  double executed_s = 0;            // wall seconds held
  double iterations_done = 0;       // progress the job reported at its last allocation change
  double iteration_rate = 0;        // iterations/s of the current run (what a job's logs show); 0 when idle
  // Running, but holding its devices without progress: it reached the mark a round-based
  // scheduler set with SchedContext::RunUntil (Gavel's micro-task end). Not a preemption.
  bool idle = false;
  // Space sharing (docs/space_sharing.md): the running job co-located with this one on all of its
  // devices, or -1 (kNoJob). Both jobs list the same devices.
  JobId sharing_with = -1;
  // A pending container job the placer could not place: why (the last attempt); cleared when it
  // starts.
  std::string pending_reason;

  int num_devices() const { return static_cast<int>(devices.size()); }
  double AttainedServiceGpuS(double now) const {
    return service_gpu_s + (state == JobState::kRunning && !idle ? (now - last_start_s) * num_devices() : 0.0);
  }
  double ExecutedS(double now) const {
    return executed_s + (state == JobState::kRunning && !idle ? now - last_start_s : 0.0);
  }
};

}  // namespace hetsched
