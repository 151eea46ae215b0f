// Fault injection shared by the back-end tests (issue 20): a planner that plans with a real one,
// then lays the job's first worker on device 0 whatever devices it was given. The second job it
// plans asks for a device the first one holds, which the back end must refuse as a fault (a
// double booking), never as "no room".
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "hetsched/sched/planner.h"

namespace hetsched::testing_util {

class DeviceZeroPlanner : public Planner {
 public:
  explicit DeviceZeroPlanner(std::unique_ptr<Planner> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return "device-zero"; }
  Result<PlannedJob> PlanJob(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                             const Cluster& cluster) override {
    HETSCHED_ASSIGN_OR_RETURN(PlannedJob planned, inner_->PlanJob(job, model, devices, cluster));
    planned.plan.devices.front() = 0;
    planned.prepared = {};  // it described the plan as the inner planner made it
    return planned;
  }

 private:
  std::unique_ptr<Planner> inner_;
};

}  // namespace hetsched::testing_util
