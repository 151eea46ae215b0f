// GandivaAllocation (gandiva.h). Line numbers cite scheduler/policies/gandiva.py @ c4fa400.
#include "hetsched/policies/gavel/gandiva.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace hetsched::gavel {

namespace {

// Gavel's _get_normalized_throughput (:45-57) of problem pair p: over the types by name, each
// member's paired rate over its rate alone, summed; 0 as soon as one paired rate is <= 0.
double NormalizedPairThroughput(const AllocationProblem& problem, const AllocationPair& p,
                                const std::vector<size_t>& by_name) {
  double sum = 0;
  for (size_t k : by_name) {
    const double paired[2] = {p.throughput_a[k], p.throughput_b[k]};
    const size_t member[2] = {p.a, p.b};
    for (int i = 0; i < 2; ++i) {
      if (paired[i] <= 0.0) return 0.0;
      sum += paired[i] / problem.jobs[member[i]].throughput[k];
    }
  }
  return sum;
}

// The index into problem.pairs of each of `pairs` (lower id, higher id; no job in two) whose jobs
// are both in the problem: the first problem pair with job a the lower and b the higher. One pass
// over the problem's pairs, not a table of all O(jobs^2) of them.
std::map<std::pair<JobId, JobId>, size_t> FindPairs(const AllocationProblem& problem,
                                                    const std::map<JobId, size_t>& job_index,
                                                    const std::set<std::pair<JobId, JobId>>& pairs) {
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> higher_of(problem.jobs.size(), kNone);  // the lower's index -> the higher's
  for (const auto& [low, high] : pairs) {
    const auto l = job_index.find(low), h = job_index.find(high);
    if (l != job_index.end() && h != job_index.end()) higher_of[l->second] = h->second;
  }
  std::map<std::pair<JobId, JobId>, size_t> found;
  for (size_t p = 0; p < problem.pairs.size(); ++p) {
    const AllocationPair& pair = problem.pairs[p];
    if (pair.a < higher_of.size() && higher_of[pair.a] == pair.b) {
      found.emplace(std::make_pair(problem.jobs[pair.a].id, problem.jobs[pair.b].id), p);
    }
  }
  return found;
}

}  // namespace

Result<Allocation> GandivaAllocation::Compute(const AllocationProblem& problem) {
  Allocation out = ZeroAllocation(problem);
  if (problem.jobs.empty()) return out;  // flatten() gives None (:62)
  const std::vector<size_t> by_name = TypesByName(problem);
  std::map<JobId, size_t> job_index;
  for (size_t j = 0; j < problem.jobs.size(); ++j) job_index.emplace(problem.jobs[j].id, j);

  // 1. Drop the pairs with a member gone or a normalised throughput below 1 (:67-88).
  const std::map<std::pair<JobId, JobId>, size_t> kept_index = FindPairs(problem, job_index, pairs_);
  std::erase_if(pairs_, [&](const std::pair<JobId, JobId>& pair) {
    if (!job_index.contains(pair.first) || !job_index.contains(pair.second)) return true;
    const auto p = kept_index.find(pair);
    return p == kept_index.end() || NormalizedPairThroughput(problem, problem.pairs[p->second], by_name) < 1.0;
  });

  // 2. The combinations: every job alone while the cluster has room for all, else pairs (:90-139).
  long long requested = 0, available = 0;
  for (const AllocationJob& job : problem.jobs) requested += job.num_gpus;
  for (int w : problem.capacity) available += w;
  std::vector<size_t> alone;  // jobs that are combinations alone
  std::vector<size_t> paired;  // pairs that are combinations (indices into problem.pairs)
  if (requested <= available) {
    alone.resize(problem.jobs.size());
    std::iota(alone.begin(), alone.end(), size_t{0});
  } else {
    std::vector<char> in_pair(problem.jobs.size(), 0);
    for (const auto& [low, high] : pairs_) in_pair[job_index.at(low)] = in_pair[job_index.at(high)] = 1;
    for (size_t j = 0; j < problem.jobs.size(); ++j) {
      if (!in_pair[j]) alone.push_back(j);
    }
    const size_t draws = alone.size();
    for (size_t i = 0; alone.size() > 1 && i < draws; ++i) {
      const std::vector<size_t> drawn = rng_.Sample(alone.size(), 2);
      const size_t first = alone[drawn[0]], second = alone[drawn[1]];
      if (problem.jobs[first].num_gpus != problem.jobs[second].num_gpus) continue;
      std::erase_if(alone, [&](size_t j) { return j == first || j == second; });
      pairs_.emplace(std::min(problem.jobs[first].id, problem.jobs[second].id),
                     std::max(problem.jobs[first].id, problem.jobs[second].id));
    }
    const std::map<std::pair<JobId, JobId>, size_t> pair_index = FindPairs(problem, job_index, pairs_);
    for (const auto& pair : pairs_) {
      const auto p = pair_index.find(pair);
      if (p == pair_index.end()) {
        return Status::InvalidArgument("gavel-gandiva: jobs " + std::to_string(pair.first) + " and " +
                                       std::to_string(pair.second) + " are paired but not among the problem's pairs");
      }
      paired.push_back(p->second);
    }
  }

  // 3. An equal split of every type over the m combinations, each row at most 1 (:19-42).
  const double m = static_cast<double>(alone.size() + paired.size());
  auto split = [&](int gpus, std::span<double> row) {
    double sum = 0;
    for (size_t k : by_name) {
      row[k] = static_cast<double>(problem.capacity[k]) / m / static_cast<double>(gpus);
      sum += row[k];
    }
    const double scale = std::max(sum, 1.0);
    for (double& x : row) x /= scale;
  };
  for (size_t j : alone) split(problem.jobs[j].num_gpus, out.share[j]);
  for (size_t p : paired) split(problem.jobs[problem.pairs[p].a].num_gpus, out.pair_share[p]);
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    if (!Placeable(problem, j)) out.unplaceable.push_back(problem.jobs[j].id);
  }
  return out;
}

}  // namespace hetsched::gavel
