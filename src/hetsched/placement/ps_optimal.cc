// ps-optimal: the placement of one parameter-server job that co-locates the most (worker,
// server) pairs, i.e. the least cross-node traffic with evenly sized shards (ALGORITHMS.md 6.1
// objective X), solved exactly as a MIP with CBC. For small cases only: it is the yardstick of
// DLTAP's gap (tests/placement/dltap_test.cc), not a production placer.
//   x[p][h] in {0,1}: server p on node h;  y[h] in Z+: workers on node h;
//   u[p][h] >= 0: workers on h that share the node with server p (u <= y[h], u <= M x[p][h]);
//   max sum u  s.t.  sum_h x[p][h] = 1,  sum_h y[h] = M,  and on every node h, for CPU, memory and
//   GPUs: sum_p req_ps x[p][h] + req_worker y[h] <= free(h).
// Workers are interchangeable, so counting them per node (y) rather than one binary per worker
// removes most of the symmetry. Cross-node bytes per iteration = 2 (S/P) (P M - sum u).
// Option max_variables (default 5000): larger instances stay queued with that reason.
#include <cmath>
#include <fmt/format.h>

#include "hetsched/lp/linear_program.h"
#include "hetsched/placement/container_draft.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

using placement_internal::ContainerDraft;

class PsOptimalPlacer : public placement_internal::ContainerPlacer {
 public:
  PsOptimalPlacer(long long max_variables, long long max_nodes, double time_limit_s)
      : max_variables_(max_variables), max_nodes_(max_nodes), time_limit_s_(time_limit_s) {}
  std::string_view name() const override { return "ps-optimal"; }

  bool PlaceContainers(const PlacementRequest& request, const ClusterState& state,
                       std::vector<ContainerPlacement>* out, std::string* reason) override {
    const JobSpec& job = *request.job;
    draft_.Reset(state, job, placement_internal::ContainerGpuType(request, state));
    std::vector<NodeId> nodes;  // nodes that can hold at least one container
    bool any_ps = false, any_worker = false;
    for (NodeId n = 0; n < state.cluster().num_nodes(); ++n) {
      const bool ps_fits = draft_.Fits(n, ContainerRole::kParameterServer);
      const bool worker_fits = draft_.Fits(n, ContainerRole::kWorker);
      any_ps |= ps_fits;
      any_worker |= worker_fits;
      if (ps_fits || worker_fits) nodes.push_back(n);
    }
    if (!any_ps || !any_worker) {
      *reason = placement_internal::NoRoomReason(draft_, any_ps ? ContainerRole::kWorker : ContainerRole::kParameterServer);
      return false;
    }
    const int P = job.num_ps, M = job.num_workers;
    const long long vars = static_cast<long long>(nodes.size()) * (2 * P + 1);
    if (vars > max_variables_) {
      *reason = fmt::format("ps-optimal: {} variables exceed max_variables {}", vars, max_variables_);
      return false;
    }
    lp::LinearProgram mip;
    mip.SetSense(lp::Sense::kMaximize);
    const size_t H = nodes.size();
    std::vector<int> x(static_cast<size_t>(P) * H), u(static_cast<size_t>(P) * H), y(H);
    const ContainerRequest& ps = job.ps_request;
    const ContainerRequest& w = job.worker_request;
    for (size_t h = 0; h < H; ++h) {
      const bool ps_ok = draft_.Fits(nodes[h], ContainerRole::kParameterServer);
      const bool w_ok = draft_.Fits(nodes[h], ContainerRole::kWorker);
      y[h] = mip.AddVariable(0, w_ok ? M : 0, 0, true);
      for (int p = 0; p < P; ++p) {
        x[static_cast<size_t>(p) * H + h] = mip.AddVariable(0, ps_ok ? 1 : 0, 0, true);
        u[static_cast<size_t>(p) * H + h] = mip.AddVariable(0, M, 1.0);
      }
    }
    std::vector<std::pair<int, double>> terms;
    for (int p = 0; p < P; ++p) {
      terms.clear();
      for (size_t h = 0; h < H; ++h) terms.emplace_back(x[static_cast<size_t>(p) * H + h], 1.0);
      mip.AddConstraint(terms, 1, 1);
    }
    terms.clear();
    for (size_t h = 0; h < H; ++h) terms.emplace_back(y[h], 1.0);
    mip.AddConstraint(terms, M, M);
    for (size_t h = 0; h < H; ++h) {
      const NodeId n = nodes[h];
      for (int p = 0; p < P; ++p) {
        const int uph = u[static_cast<size_t>(p) * H + h];
        const std::pair<int, double> le_y[] = {{uph, 1.0}, {y[h], -1.0}};
        mip.AddConstraint(le_y, -lp::kInfinity, 0);
        const std::pair<int, double> le_x[] = {{uph, 1.0}, {x[static_cast<size_t>(p) * H + h], -static_cast<double>(M)}};
        mip.AddConstraint(le_x, -lp::kInfinity, 0);
      }
      const double ps_need[3] = {static_cast<double>(ps.cpu_millicores), static_cast<double>(ps.memory_bytes),
                                 static_cast<double>(ps.gpus)};
      const double w_need[3] = {static_cast<double>(w.cpu_millicores), static_cast<double>(w.memory_bytes),
                                static_cast<double>(w.gpus)};
      const double avail[3] = {static_cast<double>(draft_.cpu_free(n)), static_cast<double>(draft_.memory_free(n)),
                              static_cast<double>(draft_.gpus_free(n))};
      for (int r = 0; r < 3; ++r) {
        // Memory in GiB so that the coefficients stay well scaled.
        const double scale = r == 1 ? 1.0 / 1073741824.0 : 1.0;
        terms.clear();
        for (int p = 0; p < P; ++p) terms.emplace_back(x[static_cast<size_t>(p) * H + h], ps_need[r] * scale);
        terms.emplace_back(y[h], w_need[r] * scale);
        mip.AddConstraint(terms, -lp::kInfinity, avail[r] * scale);
      }
    }
    lp::SolveOptions options;
    // By nodes, so that the placement repeats on any machine; the time limit (off unless asked for)
    // is a wall-clock guard whose answer, where reached, is the machine speed's.
    options.max_nodes = max_nodes_;
    options.time_limit_s = time_limit_s_;
    auto solved = lp::SolveMip(mip, options);
    if (!solved.ok() || solved->values.empty()) {
      *reason = solved.ok() ? "ps-optimal: no placement fits (the MIP is infeasible)"
                            : "ps-optimal: " + solved.status().message();
      return false;
    }
    const std::vector<double>& v = solved->values;
    for (int p = 0; p < P; ++p) {
      for (size_t h = 0; h < H; ++h) {
        if (v[static_cast<size_t>(x[static_cast<size_t>(p) * H + h])] > 0.5) {
          if (!draft_.Fits(nodes[h], ContainerRole::kParameterServer)) return Fail(reason);
          draft_.Place(nodes[h], ContainerRole::kParameterServer);
          break;
        }
      }
    }
    for (size_t h = 0; h < H; ++h) {
      const long long count = std::llround(v[static_cast<size_t>(y[h])]);
      for (long long k = 0; k < count; ++k) {
        if (!draft_.Fits(nodes[h], ContainerRole::kWorker)) return Fail(reason);
        draft_.Place(nodes[h], ContainerRole::kWorker);
      }
    }
    if (draft_.placed(ContainerRole::kParameterServer) != P || draft_.placed(ContainerRole::kWorker) != M) {
      return Fail(reason);
    }
    const auto placed = draft_.Finish();
    out->insert(out->end(), placed.begin(), placed.end());
    return true;
  }

 private:
  static bool Fail(std::string* reason) {
    *reason = "ps-optimal: the solver's placement does not fit (rounding)";
    return false;
  }
  long long max_variables_;
  long long max_nodes_;
  double time_limit_s_;
  ContainerDraft draft_;
};

Result<std::unique_ptr<Placer>> MakePsOptimal(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(long long max_variables, options.GetInt("max_variables", 5000));
  HETSCHED_ASSIGN_OR_RETURN(long long max_nodes, options.GetInt("max_nodes", 100000));
  if (max_nodes < 1) return Status::InvalidArgument("ps-optimal: max_nodes must be >= 1");
  HETSCHED_ASSIGN_OR_RETURN(double time_limit_s, options.GetDouble("time_limit_s", lp::kInfinity));
  if (!(time_limit_s > 0)) return Status::InvalidArgument("ps-optimal: time_limit_s must be > 0 seconds");
  return std::unique_ptr<Placer>(std::make_unique<PsOptimalPlacer>(max_variables, max_nodes, time_limit_s));
}

const MethodInfo kPsOptimalInfo{
    "ps-optimal", "containers: exact least cross-node traffic of one PS job (MIP, CBC; small cases; options max_variables, max_nodes, time_limit_s)",
    "[REC] exact optimum of ALGORITHMS.md 6.1's objective, the offline ILP baseline of E5 (6.4)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kPsOptimalRegistered, kPsOptimalInfo, MakePsOptimal)

}  // namespace hetsched
